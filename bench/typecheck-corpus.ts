/**
 * The baselines of the type-check suite: the same N synthetic tools (bench/synthetic-protos.ts)
 * written two ways, each a folder with its own tsconfig (the scaffold's strictness):
 *
 * - floor: plain interfaces and `async function tool(args: In): Promise<Out>`, no builder;
 * - mcp: @modelcontextprotocol/sdk `McpServer.registerTool` with zod 4 input and output shapes;
 * - schema-first: harness-tool's `defineTool({...})` with the JSON Schemas inline, the handlers'
 *   types inferred from them, and `defineProvider` (docs/guide.md, "Without protos").
 *
 * Each declares the types the plugin generates from the synthetic proto: the format enum as its
 * JSON names, the repeated fields optional.
 *
 * harness-tool's corpus is the scaffold's repository (bench/scaffold-corpus.ts). Every corpus
 * implements the same handler body, so the figures differ only by the declarations.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SyntheticTool } from "./synthetic-protos.js";

/** The tsconfig every corpus shares: the project's strictness, as a provider repository would set it. */
export function corpusTsconfig(include: readonly string[]): string {
  return `${JSON.stringify(
    {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023"],
        types: ["node"],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        skipLibCheck: true,
        noEmit: true,
      },
      include,
    },
    null,
    2,
  )}\n`;
}

function writeCorpusDir(dir: string, files: Record<string, string>, include: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "package.json"),
    `${JSON.stringify({ name: `corpus-${path.basename(dir)}`, private: true, type: "module" })}\n`,
  );
  writeFileSync(path.join(dir, "tsconfig.json"), corpusTsconfig(include));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

/** The handler body every corpus shares: reads the input's fields, returns the output. */
const handlerBody = (input: string) =>
  `({ summary: \`\${${input}.path}: \${${input}.format}\`, count: ${input}.limit, entries: (${input}.filters ?? []).map((f) => ({ name: f.key, size: ${input}.window.length })), truncated: ${input}.recursive })`;

function floorTool(t: SyntheticTool): string {
  return `/** How the result of ${t.name} is rendered. */
export type ${t.rpc}Format = "text" | "json";
/** A window into a long result. */
export interface ${t.rpc}Window { offset: number; length: number }
/** One label filter. */
export interface ${t.rpc}Filter { key: string; value: string }
/** The input of ${t.name}. */
export interface ${t.rpc}Input {
  path: string;
  limit: number;
  recursive: boolean;
  format: ${t.rpc}Format;
  tags?: string[];
  window: ${t.rpc}Window;
  filters?: ${t.rpc}Filter[];
}
/** One entry of the result. */
export interface ${t.rpc}Entry { name: string; size: number }
/** The result of ${t.name}. */
export interface ${t.rpc}Output { summary: string; count: number; entries?: ${t.rpc}Entry[]; truncated: boolean }
/** ${t.description} */
export async function ${t.handlerKey}(args: ${t.rpc}Input): Promise<${t.rpc}Output> {
  return ${handlerBody("args")};
}
`;
}

function mcpTool(t: SyntheticTool): string {
  const annotations =
    t.kind === "data_source"
      ? "{ readOnlyHint: true, idempotentHint: true }"
      : t.kind === "interactive"
        ? "{ readOnlyHint: true }"
        : `{ destructiveHint: ${t.risk === "high" || t.risk === "critical"}, idempotentHint: ${t.idempotent} }`;
  return `server.registerTool(
  "${t.name}",
  {
    description: "${t.description}",
    inputSchema: {
      path: z.string().describe("Path of the collection, relative to the call's working directory."),
      limit: z.number().int().describe("Maximum number of entries to consider."),
      recursive: z.boolean().describe("Whether to descend into nested collections."),
      format: z.enum(["text", "json"]).describe("How the result is rendered."),
      tags: z.array(z.string()).optional().describe("Tags an entry must carry, all of them."),
      window: z.object({ offset: z.number().int(), length: z.number().int() }).describe("Which part of the result to return."),
      filters: z.array(z.object({ key: z.string(), value: z.string() })).optional().describe("Label filters, all of which must match."),
    },
    outputSchema: {
      summary: z.string().describe("A one-line summary for the model."),
      count: z.number().int().describe("Number of entries that matched."),
      entries: z.array(z.object({ name: z.string(), size: z.number().int() })).optional().describe("The entries in the window."),
      truncated: z.boolean().describe("True when more entries matched than the window holds."),
    },
    annotations: ${annotations},
  },
  async (args) => {
    const output = ${handlerBody("args")};
    return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
  },
);
`;
}

/** Writes the floor corpus into `dir`. */
export function writeFloorCorpus(dir: string, tools: readonly SyntheticTool[]): void {
  writeCorpusDir(
    dir,
    {
      "tools.ts": `// Floor: plain interfaces and functions, no builder. Written by bench/typecheck-corpus.ts.\n\n${tools.map(floorTool).join("\n")}`,
    },
    ["*.ts"],
  );
}

/** Writes the MCP SDK peer corpus into `dir`. */
export function writeMcpCorpus(dir: string, tools: readonly SyntheticTool[]): void {
  const text = `// Peer: @modelcontextprotocol/sdk registerTool with zod 4 shapes. Written by bench/typecheck-corpus.ts.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export const server = new McpServer({ name: "synthetic", version: "1.0.0" });

${tools.map(mcpTool).join("\n")}`;
  writeCorpusDir(dir, { "server.ts": text }, ["*.ts"]);
}

/** The synthetic tool's input schema, as a schema-first author writes it inline. */
const schemaFirstInput = `{
    type: "object",
    properties: {
      path: { type: "string", description: "Path of the collection, relative to the call's working directory." },
      limit: { type: "number", description: "Maximum number of entries to consider." },
      recursive: { type: "boolean", description: "Whether to descend into nested collections." },
      format: { type: "string", enum: ["text", "json"], description: "How the result is rendered." },
      tags: { type: "array", items: { type: "string" }, description: "Tags an entry must carry, all of them." },
      window: {
        type: "object",
        properties: { offset: { type: "number" }, length: { type: "number" } },
        required: ["offset", "length"],
        description: "Which part of the result to return.",
      },
      filters: {
        type: "array",
        items: { type: "object", properties: { key: { type: "string" }, value: { type: "string" } }, required: ["key", "value"] },
        description: "Label filters, all of which must match.",
      },
    },
    required: ["path", "limit", "recursive", "format", "window"],
  }`;

/** The synthetic tool's output schema, inline. */
const schemaFirstOutput = `{
    type: "object",
    properties: {
      summary: { type: "string", description: "A one-line summary for the model." },
      count: { type: "number", description: "Number of entries that matched." },
      entries: {
        type: "array",
        items: { type: "object", properties: { name: { type: "string" }, size: { type: "number" } }, required: ["name", "size"] },
        description: "The entries in the window.",
      },
      truncated: { type: "boolean", description: "True when more entries matched than the window holds." },
    },
    required: ["summary", "count", "truncated"],
  }`;

function schemaFirstTool(t: SyntheticTool): string {
  const traits = [`idempotent: ${t.idempotent}`, "defaultTimeoutMs: 30_000"];
  if (t.concurrency) {
    const keys = t.concurrency.keyFields?.length ? `, keyFields: ${JSON.stringify(t.concurrency.keyFields)}` : "";
    traits.push(`concurrency: { safe: ${t.concurrency.safe}${keys} }`);
  }
  if (t.processBacked) traits.push("processBacked: true");
  else if (t.streaming) traits.push("streaming: true");
  return `const ${t.handlerKey} = defineTool({
  name: "${t.name}",
  kind: "${t.kind}",
  risk: "${t.risk}",
  description: "${t.description}",
  inputSchema: ${schemaFirstInput},
  outputSchema: ${schemaFirstOutput},
  ${traits.join(",\n  ")},
});
`;
}

/**
 * Writes the schema-first corpus into `dir`: one provider of the N tools declared by
 * `defineTool({...})`, handlers typed by `defineProvider`; `packageDir` is the built harness-tool
 * package its node_modules links.
 */
export function writeSchemaFirstCorpus(dir: string, tools: readonly SyntheticTool[], packageDir: string): void {
  const text = `// Schema-first: defineTool({...}) with inline schemas. Written by bench/typecheck-corpus.ts.
import { defineProvider, defineTool } from "harness-tool";

${tools.map(schemaFirstTool).join("\n")}
export const provider = defineProvider(
  {
    name: "synthetic",
    version: "1.0.0",
    source: "github.com/harness-tool/bench-synthetic",
    tools: { ${tools.map((t) => t.handlerKey).join(", ")} },
  },
  {
${tools.map((t) => `    ${t.handlerKey}: async (input) => ${handlerBody("input")},\n`).join("")}  },
);
`;
  writeCorpusDir(dir, { "provider.ts": text }, ["*.ts"]);
  mkdirSync(path.join(dir, "node_modules"), { recursive: true });
  symlinkSync(packageDir, path.join(dir, "node_modules/harness-tool"));
}

/** The handler body every corpus shares, for a handlers file written elsewhere. */
export function sharedHandlerBody(input: string): string {
  return handlerBody(input);
}
