/**
 * What `harness-tool mcp import` recorded of an MCP server (the provider's mcp/imported.json), and
 * the comparison of the server's live tools with it that Configure makes. A change is breaking
 * when a call the kernel was promised could now fail or mean something else (a tool gone, its input
 * or output schema changed beyond an added optional input field, a schema that no longer maps);
 * risk-relevant when the server's own hints moved toward danger (readOnlyHint lost, destructiveHint
 * or openWorldHint gained, idempotentHint lost). Both refuse Configure. A new tool, a new optional
 * input field or a changed description is compatible: logged, served as imported.
 */
import { mapMcpSchema } from "./schema-mapping.js";

/** The hints an MCP server reports of a tool; they suggest, never decide. */
export interface McpToolHints {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** One imported tool. */
export interface ImportedTool {
  /** The MCP tool's name, which is also the provider's tool name. */
  readonly name: string;
  /** The generated handler's key (the rpc's name in lowerCamelCase). */
  readonly handler: string;
  readonly description: string;
  /** The mapped input schema (runtime/mcp/schema-mapping.ts). */
  readonly inputSchema: Record<string, unknown>;
  /** The mapped output schema; absent when the server declares none (the result is its content). */
  readonly outputSchema?: Record<string, unknown>;
  readonly hints: McpToolHints;
}

/** What the import recorded. */
export interface ImportedServer {
  /** The server's command line, the default when the configuration names none ("" for a URL). */
  readonly command: string;
  readonly args: readonly string[];
  /** A server reached over streamable HTTP instead of started: its URL. */
  readonly url?: string;
  /** Environment variables given to the server (never secrets). */
  readonly env: { readonly [name: string]: string };
  /** Environment variables that are secrets: config attributes (lowercase), else the provider's environment. */
  readonly secrets: readonly string[];
  /** The command that re-imports the server, for the refusal to name. */
  readonly importCommand: string;
  readonly tools: readonly ImportedTool[];
}

/** A tool as tools/list gives it. */
export interface LiveTool {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: McpToolHints | undefined;
}

/** The drift between the import and the live server. */
export interface SurfaceDrift {
  /** Breaking or risk-relevant: `tool: what changed`. */
  readonly refused: readonly string[];
  /** Compatible: logged. */
  readonly compatible: readonly string[];
}

function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "description")
      .map(([key, child]) => [key, withoutDescriptions(child)]),
  );
}

const same = (a: unknown, b: unknown) =>
  JSON.stringify(withoutDescriptions(a)) === JSON.stringify(withoutDescriptions(b));

/** Whether `live` is `imported` plus optional root properties. */
function addsOptionalInputs(imported: Record<string, unknown>, live: Record<string, unknown>): boolean {
  const importedProps = (imported["properties"] ?? {}) as Record<string, unknown>;
  const liveProps = { ...((live["properties"] ?? {}) as Record<string, unknown>) };
  const required = new Set((live["required"] ?? []) as string[]);
  for (const name of Object.keys(liveProps))
    if (!(name in importedProps) && !required.has(name)) delete liveProps[name];
  return same({ ...live, properties: liveProps }, imported);
}

function riskChanges(was: McpToolHints, now: McpToolHints): string[] {
  const out: string[] = [];
  if (was.readOnlyHint === true && now.readOnlyHint !== true) out.push("readOnlyHint no longer true");
  if (was.destructiveHint === false && now.destructiveHint !== false) out.push("destructiveHint no longer false");
  if (was.idempotentHint === true && now.idempotentHint !== true) out.push("idempotentHint no longer true");
  if (was.openWorldHint === false && now.openWorldHint !== false) out.push("openWorldHint no longer false");
  return out;
}

function toolChanges(was: ImportedTool, live: LiveTool, refused: string[], compatible: string[]): void {
  const input = mapMcpSchema(live.inputSchema);
  if (!input.ok) refused.push(`${was.name}: its input schema no longer maps (${input.problems[0]})`);
  else if (!same(input.schema, was.inputSchema)) {
    if (addsOptionalInputs(was.inputSchema, input.schema)) compatible.push(`${was.name}: new optional input fields`);
    else refused.push(`${was.name}: its input schema changed`);
  }
  if ((live.outputSchema === undefined) !== (was.outputSchema === undefined))
    refused.push(`${was.name}: its output schema was ${was.outputSchema ? "removed" : "added"}`);
  else if (live.outputSchema !== undefined) {
    const output = mapMcpSchema(live.outputSchema);
    if (!output.ok || !same(output.schema, was.outputSchema)) refused.push(`${was.name}: its output schema changed`);
  }
  for (const change of riskChanges(was.hints, live.annotations ?? {})) refused.push(`${was.name}: ${change}`);
  if ((live.description ?? "") !== was.description) compatible.push(`${was.name}: its description changed`);
}

/** Compares the live tools with the imported ones. */
export function compareSurface(imported: readonly ImportedTool[], live: readonly LiveTool[]): SurfaceDrift {
  const refused: string[] = [];
  const compatible: string[] = [];
  const byName = new Map(live.map((tool) => [tool.name, tool]));
  for (const tool of imported) {
    const now = byName.get(tool.name);
    if (!now) refused.push(`${tool.name}: gone from the server`);
    else toolChanges(tool, now, refused, compatible);
  }
  const known = new Set(imported.map((tool) => tool.name));
  for (const tool of live) if (!known.has(tool.name)) compatible.push(`${tool.name}: new on the server, not imported`);
  return { refused, compatible };
}
