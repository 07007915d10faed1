/**
 * The imported provider's proto: a service with one rpc per MCP tool, each with the tool's
 * description, its mapped schemas as `(harnesstool.v1.schema).json_schema`, and a classification
 * block (kind, risk, idempotent, concurrency, default_timeout) that defaults to resource/high and is
 * the author's to edit: re-importing keeps each tool's block as it finds it. The server's hints are
 * comments above the block: they suggest, never decide.
 */
import { contentResultSchema } from "harness-tool/mcp";
import type { PlannedTool } from "./import-plan.js";

const blockStart = "      // Classification: yours to edit; `harness-tool mcp import` keeps it when it re-imports.";
const blockEnd = "      // (end of the classification)";

/** The default classification: the kernel's conservative reading of an opaque MCP tool. */
export const defaultClassification = [
  "      kind: TOOL_KIND_RESOURCE",
  "      risk: RISK_CLASS_HIGH",
  "      idempotent: false",
  "      concurrency: {safe: false}",
  "      default_timeout: {seconds: 60}",
].join("\n");

/** Each tool's classification block in an existing proto, by tool name. */
export function classificationsOf(proto: string): Map<string, string> {
  const found = new Map<string, string>();
  // Within one rpc only: a block an author deleted is not taken from the next tool.
  const pattern =
    /name: "([^"]+)"(?:(?!\n {2}rpc )[\s\S])*?\n {6}\/\/ Classification: [^\n]*\n((?:(?!\n {2}rpc )[\s\S])*?)\n {6}\/\/ \(end of the classification\)/g;
  for (const match of proto.matchAll(pattern)) found.set(match[1]!, match[2]!);
  return found;
}

/** The facts of a classification block, for the change report. */
export function classificationFacts(block: string): { kind: string; risk: string; idempotent: boolean; safe: boolean } {
  const kind = /kind: TOOL_KIND_(\w+)/.exec(block)?.[1]?.toLowerCase() ?? "resource";
  const risk = /risk: RISK_CLASS_(\w+)/.exec(block)?.[1]?.toLowerCase() ?? "high";
  return { kind, risk, idempotent: /idempotent: true/.test(block), safe: /safe: true/.test(block) };
}

function hintComment(tool: PlannedTool): string {
  const hints = Object.entries(tool.hints)
    .filter(([, value]) => typeof value === "boolean")
    .map(([name, value]) => `${name}=${value}`);
  if (hints.length === 0) return "  // The MCP server gives no hints for this tool.\n";
  const suggestion = tool.hints.readOnlyHint
    ? "readOnlyHint suggests TOOL_KIND_DATA_SOURCE with RISK_CLASS_READ_ONLY"
    : tool.hints.destructiveHint === false
      ? "destructiveHint=false suggests a lower risk"
      : "the hints suggest keeping resource/high";
  return `  // The MCP server's hints (self-reported: they suggest, never decide): ${hints.join(", ")}.\n  // ${suggestion}, if you trust the server.\n`;
}

/** A JSON document as adjacent proto string literals, one line of the pretty JSON each. */
function jsonLiteral(schema: unknown, indent: string): string {
  return JSON.stringify(schema, null, 2)
    .split("\n")
    .map((line) => `${indent}${JSON.stringify(`${line}\n`)}`)
    .join("\n");
}

function rpcText(tool: PlannedTool, block: string): string {
  const description = tool.description.trim() === "" ? `The MCP tool ${tool.name}.` : tool.description;
  return (
    `  // MCP tool \`${tool.name}\`.\n${hintComment(tool)}` +
    `  rpc ${tool.rpc}(${tool.rpc}Request) returns (${tool.rpc}Response) {\n` +
    "    option (harnesstool.v1.tool) = {\n" +
    `      name: ${JSON.stringify(tool.name)}\n` +
    `      description: ${JSON.stringify(description)}\n` +
    `${blockStart}\n${block}\n${blockEnd}\n` +
    "      // Progress notifications become progress events.\n" +
    "      streaming: true\n" +
    "    };\n  }\n"
  );
}

function messagesText(tool: PlannedTool): string {
  const output = tool.outputSchema ?? contentResultSchema;
  return (
    `// The input of ${tool.name}: the MCP server's inputSchema, mapped into the common subset.\n` +
    `message ${tool.rpc}Request {\n  option (harnesstool.v1.schema).json_schema =\n${jsonLiteral(tool.inputSchema, "    ")};\n}\n\n` +
    `// The result of ${tool.name}: ${tool.outputSchema ? "its structuredContent, as its outputSchema says" : "its content blocks (it declares no outputSchema)"}.\n` +
    `message ${tool.rpc}Response {\n  option (harnesstool.v1.schema).json_schema =\n${jsonLiteral(output, "    ")};\n}\n`
  );
}

/** What the proto is written from. */
export interface ProtoSpec {
  readonly name: string;
  readonly pascal: string;
  readonly source: string;
  /** The server's command line, or its URL, for the comments. */
  readonly commandLine: string;
  /** Imported from a URL: the config names another URL, not a command line. */
  readonly url?: string | undefined;
  readonly secrets: readonly string[];
  readonly tools: readonly PlannedTool[];
  /** Each tool's classification block kept from the proto before (by tool name). */
  readonly kept: ReadonlyMap<string, string>;
}

function configText(spec: ProtoSpec): string {
  const secrets = spec.secrets.map(
    (name, i) =>
      `  // The server's ${name}; absent: the provider's own ${name} environment variable. A secret.\n` +
      `  optional string ${name.toLowerCase()} = ${i + 3} [(harnesstool.v1.field).sensitive = true];\n`,
  );
  return (
    "// The provider's agent.hcl block: every attribute is optional, the import's command line is the default.\n" +
    `message ${spec.pascal}Config {\n` +
    (spec.url !== undefined
      ? `  // The MCP server's URL (streamable HTTP), replacing the imported one: ${JSON.stringify(spec.url)}.\n` +
        "  optional string url = 1;\n"
      : `  // The MCP server's command, replacing the imported one: ${JSON.stringify(spec.commandLine)}.\n` +
        "  optional string command = 1;\n" +
        "  // The server's arguments, with command.\n" +
        "  repeated string args = 2 [(harnesstool.v1.field).required = false];\n") +
    `${secrets.join("")}}\n`
  );
}

/** The whole proto file. */
export function protoText(spec: ProtoSpec): string {
  // A comment is one line: a command line with a newline in an argument stays one.
  const commandLine = spec.commandLine.replace(/\s+/g, " ");
  const rpcs = spec.tools.map((tool) => rpcText(tool, spec.kept.get(tool.name) ?? defaultClassification));
  return (
    `// The ${spec.name} tool provider: the tools of an MCP server, imported by \`harness-tool mcp import\`.\n` +
    `// Server: ${commandLine}\n` +
    "// Re-run the import to follow the server; the classification blocks are kept.\n" +
    `syntax = "proto3";\n\npackage ${spec.name}.v1;\n\nimport "harnesstool/v1/annotations.proto";\n\n` +
    `// The tools of the MCP server ${commandLine}, proxied to it.\n` +
    `service ${spec.pascal}Service {\n  option (harnesstool.v1.provider) = {\n` +
    `    source: ${JSON.stringify(spec.source)}\n    config: "${spec.pascal}Config"\n  };\n\n` +
    `${rpcs.join("\n")}}\n\n${configText(spec)}\n${spec.tools.map(messagesText).join("\n")}`
  );
}
