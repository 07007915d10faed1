/**
 * From an MCP server's tools/list to what the import writes: each tool's rpc name, handler key and
 * mapped schemas (harness-tool/mcp's mapping), and the tools left out with why. Tool names are kept
 * as the server spells them (the provider's tool name is the MCP name), so a name outside
 * `[A-Za-z0-9_-]{1,64}` is left out too.
 */
import { type ImportedTool, type LiveTool, mapMcpSchema } from "harness-tool/mcp";

/** One tool to write, with its proto names. */
export interface PlannedTool extends ImportedTool {
  /** The rpc, PascalCase; its messages are `<rpc>Request` and `<rpc>Response`. */
  readonly rpc: string;
}

/** A tool that is reported and left out. */
export interface LeftOutTool {
  readonly name: string;
  readonly problems: readonly string[];
}

/** What the import writes and what it leaves out. */
export interface ImportPlan {
  readonly tools: readonly PlannedTool[];
  readonly leftOut: readonly LeftOutTool[];
}

const toolNamePattern = /^[A-Za-z0-9_-]{1,64}$/;

/** `get-tiny_image` → `GetTinyImage`; a leading digit gets a `T`. */
export function rpcName(toolName: string): string {
  const pascal = toolName
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== "")
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
  return /^[0-9]/.test(pascal) ? `T${pascal}` : pascal || "Tool";
}

/** The rpcs the provider reserves (its config message is `<Pascal>Config`). */
function uniqueRpc(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

/** Plans the import of `live`. `reserved` holds names the proto already uses (the config message). */
export function planImport(live: readonly LiveTool[], reserved: readonly string[] = []): ImportPlan {
  const tools: PlannedTool[] = [];
  const leftOut: LeftOutTool[] = [];
  const taken = new Set(reserved.map((r) => r.replace(/(Request|Response)$/, "")));
  for (const tool of [...live].sort((a, b) => a.name.localeCompare(b.name))) {
    const problems: string[] = [];
    if (!toolNamePattern.test(tool.name)) problems.push("the name is not 1-64 of [A-Za-z0-9_-]");
    const input = mapMcpSchema(tool.inputSchema);
    if (!input.ok) problems.push(...input.problems.map((p) => `input ${p}`));
    const output = tool.outputSchema === undefined ? undefined : mapMcpSchema(tool.outputSchema);
    if (output && !output.ok) problems.push(...output.problems.map((p) => `output ${p}`));
    if (problems.length > 0 || !input.ok || (output && !output.ok)) {
      leftOut.push({ name: tool.name, problems });
      continue;
    }
    const rpc = uniqueRpc(rpcName(tool.name), taken);
    tools.push({
      name: tool.name,
      rpc,
      handler: rpc[0]!.toLowerCase() + rpc.slice(1),
      description: tool.description ?? "",
      inputSchema: input.schema,
      ...(output?.ok ? { outputSchema: output.schema } : {}),
      hints: tool.annotations ?? {},
    });
  }
  return { tools, leftOut };
}
