/**
 * Reads an MCP server's tools the way the imported provider will meet it: the server started over
 * stdio with the given command line and environment, initialized, tools/list read (every page), and
 * the server ended, all within a deadline.
 */
import type { LiveTool } from "harness-tool/mcp";

/** The server to read: started from its command line, or reached at its URL (streamable HTTP). */
export interface ServerSpec {
  readonly url?: string | undefined;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [name: string]: string };
}

/** Its tools, or a one-line error naming the command; never waits past `timeoutMs`. */
export async function readServerTools(server: ServerSpec, timeoutMs: number): Promise<LiveTool[]> {
  if (server.url !== undefined) return readHttpServerTools(server.url, timeoutMs);
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    env: { ...getDefaultEnvironment(), ...filteredEnvironment(), ...server.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-2000);
  });
  const client = new Client({ name: "harness-tool-mcp-import", version: "0.1.0" });
  const signal = AbortSignal.timeout(timeoutMs);
  const commandLine = [server.command, ...server.args].join(" ");
  try {
    await client.connect(transport, { signal, timeout: timeoutMs });
    return await listAll(client, signal, timeoutMs);
  } catch (error) {
    const why = signal.aborted ? `no answer within ${timeoutMs} ms` : (error as Error).message;
    const tail = stderr.trim().split("\n").pop() ?? "";
    throw new Error(
      `the MCP server ${JSON.stringify(commandLine)} did not list its tools: ${why}${tail ? ` (its stderr: ${tail})` : ""} (check the command after --)`,
    );
  } finally {
    await client.close().catch(() => {});
  }
}

/** The import's own environment, which the server inherits as the provider's children do. */
function filteredEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

type McpClient = import("@modelcontextprotocol/sdk/client/index.js").Client;

/** Every page of tools/list. */
async function listAll(client: McpClient, signal: AbortSignal, timeoutMs: number): Promise<LiveTool[]> {
  const tools: LiveTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: timeoutMs });
    tools.push(...(page.tools as LiveTool[]));
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** The tools of a server reached over streamable HTTP. */
async function readHttpServerTools(url: string, timeoutMs: number): Promise<LiveTool[]> {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "harness-tool-mcp-import", version: "0.1.0" });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)), { signal, timeout: timeoutMs });
    return await listAll(client, signal, timeoutMs);
  } catch (error) {
    const why = signal.aborted ? `no answer within ${timeoutMs} ms` : (error as Error).message;
    throw new Error(`the MCP server at ${url} did not list its tools: ${why} (check --url)`);
  } finally {
    await client.close().catch(() => {});
  }
}
