/**
 * The generated sections of the pages, each the value of one template placeholder: the tools
 * index, the hook points, the configuration (attributes and the agent.hcl block), the slash
 * commands, and per tool its facts, fields, schemas, example call and Preview.
 */
import type { ConfigAttribute } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import { ToolKind, type ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { jsonSchemaFromWire } from "harness-tool/schema";
import {
  attrTypeText,
  defaultLiteral,
  patchConstraint,
  renderAgentConfig,
  secretVariable,
} from "../kernel-config/kernel-config-files.js";
import { hookPointNameOf } from "../terminal/hook-names.js";
import { concurrencyText, kindName, riskName, timeoutText } from "../terminal/wire-names.js";
import type { DocsInput } from "./docs-input.js";
import { cell, codeSpan, fence, paragraph, table } from "./markdown-text.js";
import { renderTreeMarkdown } from "./render-tree-markdown.js";
import { fieldsTable } from "./schema-fields.js";

/** Where a tool's page is, relative to the index. */
export function toolPagePath(name: string): string {
  return `tools/${name}.md`;
}

const yesNo = (value: boolean) => (value ? "yes" : "no");
const timeout = (tool: ToolSchema) => (tool.defaultTimeout ? timeoutText(tool) : "kernel default");
/** The kernel never runs an interactive tool beside another, and it declares no concurrency. */
const concurrency = (tool: ToolSchema) =>
  tool.kind === ToolKind.INTERACTIVE && !tool.concurrency ? "never concurrent" : cell(concurrencyText(tool));

/** The index's table: every tool with its facts, linked to its page. */
export function toolsTable(input: DocsInput): string {
  if (input.schema.tools.length === 0) return "The provider declares no tools.";
  return table(
    ["tool", "kind", "risk", "idempotent", "streaming", "concurrency", "default timeout", "terminates turn"],
    [...input.schema.tools]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((t) => [
        `[${codeSpan(t.name)}](${toolPagePath(t.name)})`,
        kindName(t.kind),
        riskName(t.risk),
        yesNo(t.idempotent),
        yesNo(t.streaming),
        concurrency(t),
        timeout(t),
        yesNo(t.terminatesTurn),
      ]),
  );
}

/** The hook points the provider subscribes to, as agent.hcl's hook blocks name them. */
export function hookPointsList(input: DocsInput): string {
  const names = input.schema.supportedHookPoints.map(hookPointNameOf).sort();
  if (names.length === 0) return "The provider subscribes to no hook point.";
  return names.map((name) => `- ${codeSpan(name)}`).join("\n");
}

/** Every attribute, nested ones as dotted paths, with the env path a sensitive one is read from. */
function attributeRows(
  attributes: readonly ConfigAttribute[],
  prefix: readonly string[],
  provider: string,
): string[][] {
  return attributes.flatMap((a) => {
    const path = [...prefix, a.name];
    const dflt = a.sensitive ? undefined : defaultLiteral(a);
    const row = [
      codeSpan(path.join(".")),
      cell(attrTypeText[a.type]),
      yesNo(a.required),
      a.sensitive ? `yes: ${codeSpan(`env("${secretVariable(provider, ...path)}")`)}` : "no",
      dflt === undefined ? "-" : cell(codeSpan(dflt)),
      cell(a.description),
    ];
    return [row, ...attributeRows(a.objectAttributes, path, provider)];
  });
}

/** The config attributes' table. */
export function configAttributes(input: DocsInput): string {
  const attributes = input.schema.configSchema?.attributes ?? [];
  if (attributes.length === 0) return "The provider takes no configuration attributes.";
  return table(
    ["attribute", "type", "required", "sensitive", "default", "description"],
    attributeRows(attributes, [], input.producer.name),
  );
}

/** The agent.hcl entries, as `harness-tool kernel-config` writes them (no dev_overrides: that names a path). */
export function configBlock(input: DocsInput): string {
  const { name, source, version } = input.producer;
  return fence(
    "hcl",
    renderAgentConfig({
      name,
      source,
      version: version === "" ? ">= 0.0.0" : patchConstraint(version),
      config: input.schema.configSchema,
      devPath: "",
    }),
  );
}

/** The slash commands: name, description and the template the kernel expands. */
export function slashCommands(input: DocsInput): string {
  const commands = [...input.schema.slashCommands].sort((a, b) => a.name.localeCompare(b.name));
  if (commands.length === 0) return "The provider declares no slash commands.";
  return commands
    .map((c) =>
      [`### /${c.name}`, "", paragraph(c.description) || "(no description)", "", fence("text", c.template)].join("\n"),
    )
    .join("\n\n");
}

/** One tool's facts, as a two-column table. */
export function toolFacts(tool: ToolSchema): string {
  return table(
    ["fact", "value"],
    [
      ["kind", kindName(tool.kind)],
      ["risk", riskName(tool.risk)],
      ["idempotent", yesNo(tool.idempotent)],
      ["streaming", yesNo(tool.streaming)],
      ["concurrency", concurrency(tool)],
      ["default timeout", timeout(tool)],
      ["terminates turn", yesNo(tool.terminatesTurn)],
    ],
  );
}

/** The input fields' table. */
export function inputFields(tool: ToolSchema): string {
  return fieldsTable(tool.inputSchema, "The tool takes no arguments: the model calls it with `{}`.");
}

/** The output fields' table. */
export function outputFields(tool: ToolSchema): string {
  return fieldsTable(tool.outputSchema, "The result's payload has no fields.");
}

/** A wire schema as the JSON Schema document the model receives (input) or consumers read (output). */
export function schemaJson(schema: ToolSchema["inputSchema"]): string {
  return fence("json", JSON.stringify(schema ? jsonSchemaFromWire(schema) : {}, null, 2));
}

/** The example call: its arguments, where they came from, and the invoke line that makes it. */
export function exampleCall(tool: ToolSchema, input: DocsInput): string {
  const example = input.examples.get(tool.name);
  const args = example?.args ?? {};
  const from =
    example?.from === "examples"
      ? "The author's example:"
      : "The smallest valid call (every required field, the first allowed value; what `harness-tool check` sends):";
  const line = `npx harness-tool invoke dist/provider.mjs ${tool.name} --args '${JSON.stringify(args).replace(/'/g, "'\\''")}'`;
  return [from, "", fence("json", JSON.stringify(args, null, 2)), "", fence("sh", line)].join("\n");
}

/** The Preview of the example call, or what the approval step shows without one. */
export function previewSection(tool: ToolSchema, input: DocsInput): string {
  const preview = input.previews.get(tool.name);
  if (!preview) {
    if (tool.kind === ToolKind.RESOURCE)
      return "The tool has no Preview: the approval step shows the call's arguments.";
    const kind = kindName(tool.kind);
    return `The tool has no Preview (${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} runs without the approval step).`;
  }
  const lead =
    tool.kind === ToolKind.INTERACTIVE
      ? "The prompt the frontend shows the person for the example call (the tool's Preview):"
      : "What the approval step shows for the example call:";
  return [lead, "", renderTreeMarkdown(preview)].join("\n");
}
