/**
 * The rules about Preview: every tool that answers Preview (the wire's ToolSchema does not say
 * which do; a tool without one answers UNIMPLEMENTED) returns a well-formed RenderTree for
 * schema-valid arguments, and refuses schema-invalid ones with INVALID_ARGUMENT, as Invoke would.
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { GetSchemaResponse, ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { RenderTree } from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import { ProviderCallError, type LaunchedProvider } from "harness-tool/host";
import { isToolSchemaDocument, jsonSchemaFromWire } from "harness-tool/schema";
import { argumentsEntry } from "./arguments-file.js";
import { ruleResult, type RuleResult } from "./conformance-report.js";
import type { ConformanceOptions } from "./run-conformance.js";
import { invalidArgumentVariants, sampleValue } from "./sample-arguments.js";
import { unaryTimeout } from "./schema-rules.js";

const grpcUnimplemented = 12;
const grpcInvalidArgument = 3;

/** A Preview's answer: the tree, or the failed call. */
type PreviewAnswer = { readonly tree: RenderTree | undefined } | { readonly error: ProviderCallError };

async function previewOnce(
  launched: LaunchedProvider,
  tool: string,
  args: JsonObject,
  cwd: string,
): Promise<PreviewAnswer> {
  try {
    const response = await launched.preview(
      {
        id: `check-preview-${randomUUID()}`,
        toolName: tool,
        arguments: args,
        callContext: { sessionId: "harness-tool-check", turnId: "1", workingDirectory: cwd },
      },
      unaryTimeout,
    );
    return { tree: response.preview };
  } catch (error) {
    if (error instanceof ProviderCallError) return { error };
    throw error;
  }
}

/** Where a RenderTree is malformed: no root, or a node with none of its kinds set (every node, nested ones too). */
export function renderTreeProblems(tree: RenderTree | undefined): string[] {
  if (!tree) return ["the response has no preview"];
  if (!tree.root) return ["the RenderTree has no root"];
  const problems: string[] = [];
  const walk = (value: unknown, at: string): void => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${at}[${i}]`);
      return;
    }
    if (typeof value !== "object" || value === null || value instanceof Uint8Array) return;
    const message = value as { $typeName?: string; node?: { case?: string; value?: unknown } };
    if (message.$typeName === "pluggableharness.render.v1.RenderNode") {
      if (message.node?.case === undefined) problems.push(`${at}: a RenderNode with no kind set`);
      else walk(message.node.value, `${at}.${message.node.case}`);
      return;
    }
    for (const [key, child] of Object.entries(value)) if (key !== "$typeName") walk(child, `${at}.${key}`);
  };
  walk(tree.root, "root");
  return problems;
}

/** The Preview row of one tool, or undefined when it has no Preview. */
async function previewRule(
  launched: LaunchedProvider,
  tool: ToolSchema,
  options: ConformanceOptions,
): Promise<RuleResult | undefined> {
  const input = tool.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
  if (!isToolSchemaDocument(input)) return undefined;
  const cwd = options.cwd ?? process.cwd();
  const rule = `preview.valid:${tool.name}`;
  const section = "Preview: a RenderTree, arguments validated";
  const args = argumentsEntry(options.resourceArguments, tool.name)?.args ?? (sampleValue(input) as JsonObject);
  options.onStage?.(`the Preview of ${tool.name}`);
  const answer = await previewOnce(launched, tool.name, args, cwd);
  if ("error" in answer) {
    if (answer.error.code === grpcUnimplemented) return undefined;
    return ruleResult(rule, section, "fail", `Preview of schema-valid arguments failed: ${answer.error.message}`);
  }
  const problems = renderTreeProblems(answer.tree);
  if (problems.length > 0) return ruleResult(rule, section, "fail", problems.join("; "));
  const [variant] = invalidArgumentVariants(input);
  if (variant) {
    const refused = await previewOnce(launched, tool.name, variant.arguments, cwd);
    if (!("error" in refused) || refused.error.code !== grpcInvalidArgument) {
      const got = "error" in refused ? `gRPC status ${refused.error.code}` : "a preview";
      return ruleResult(rule, section, "fail", `${variant.why}: got ${got}, not INVALID_ARGUMENT`);
    }
  }
  return ruleResult(rule, section, "pass", `a RenderTree with a ${answer.tree?.root?.node.case} root`);
}

/** One row per tool that answers Preview; one skipped row when none does. */
export async function previewRules(
  launched: LaunchedProvider,
  schema: GetSchemaResponse,
  options: ConformanceOptions,
): Promise<RuleResult[]> {
  const rows: RuleResult[] = [];
  for (const tool of schema.tools) {
    const row = await previewRule(launched, tool, options);
    if (row) rows.push(row);
  }
  if (rows.length > 0) return rows;
  return [ruleResult("preview.valid", "Preview", "skip", "no tool answers Preview (each answered UNIMPLEMENTED)")];
}
