/**
 * A provider's tools as an MCP server lists them: the GetSchema ToolSchema's name, description and
 * input and output schemas, and the MCP annotations read from its kind, risk and idempotent (the
 * table in docs/guide.md, "Serving a provider over MCP"). MCP's hints are advice to a client; the
 * kind and risk themselves travel in `_meta` so a client that knows harness-tool can read them.
 */
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { RiskClass, ToolKind, type ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { jsonSchemaFromWire } from "harness-tool/schema";
import { kindName, riskName } from "../../terminal/wire-names.js";

/** The `_meta` key prefix of what harness-tool adds to an MCP tool or result. */
export const metaPrefix = "harness-tool";

/** `read_file` → `Read file`: MCP's human title, from the tool's name (the protocol has no title). */
export function toolTitle(name: string): string {
  const words = name.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The MCP hints of a tool: a data_source or interactive tool only reads (readOnlyHint); a resource
 * writes, destructively unless its risk is low; idempotentHint is the tool's idempotent flag.
 */
export function toolAnnotations(tool: ToolSchema): ToolAnnotations {
  const title = toolTitle(tool.name);
  if (tool.kind !== ToolKind.RESOURCE) return { title, readOnlyHint: true, idempotentHint: tool.idempotent };
  return {
    title,
    readOnlyHint: false,
    destructiveHint: tool.risk !== RiskClass.LOW,
    idempotentHint: tool.idempotent,
  };
}

/** A wire schema as MCP's object schema (MCP requires `type: "object"` at the top). */
function objectSchema(schema: ToolSchema["inputSchema"]): Tool["inputSchema"] {
  const doc = schema ? jsonSchemaFromWire(schema) : { type: "object", properties: {} };
  return { ...doc, type: "object" } as Tool["inputSchema"];
}

/** One ToolSchema as an MCP tool. */
export function mcpTool(tool: ToolSchema): Tool {
  return {
    name: tool.name,
    title: toolTitle(tool.name),
    description: tool.description,
    inputSchema: objectSchema(tool.inputSchema),
    outputSchema: objectSchema(tool.outputSchema) as Tool["outputSchema"],
    annotations: toolAnnotations(tool),
    _meta: {
      [`${metaPrefix}/kind`]: kindName(tool.kind),
      [`${metaPrefix}/risk`]: riskName(tool.risk),
      [`${metaPrefix}/streaming`]: tool.streaming,
    },
  };
}
