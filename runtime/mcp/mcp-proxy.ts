/**
 * The handlers and the configure hook of a provider made by `harness-tool mcp import`: Configure
 * starts the MCP server (the imported command line, or the configuration's), compares its live
 * tools with the imported ones (runtime/mcp/imported-surface.ts) and refuses a breaking or
 * risk-relevant drift; each Invoke is a `tools/call`.
 *
 * A server that exits is reported, then restarted: the calls in flight fail with a retryable
 * `execution_failed` naming how it ended, and the next call starts it again (and compares its tools
 * again). Cancellation and the call's deadline send MCP's `notifications/cancelled`.
 */
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, ListRootsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchemaValidatorResult, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation";
import { ToolError } from "../errors/tool-error.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { validateValue } from "../schema/validate-value.js";
import type { ConfigureContext } from "../provider/provider-definition.js";
import type { StreamingToolContext } from "../provider/tool-context.js";
import { compareSurface, type ImportedServer, type ImportedTool, type LiveTool } from "./imported-surface.js";
import { ServerTransport, type ServerCommand } from "./server-transport.js";

/**
 * The configuration of an imported provider (its agent.hcl block), every attribute optional:
 * `command` and `args` replace the imported command line (`url`, the imported URL), and each secret
 * is an attribute named as its environment variable in lowercase.
 */
export interface McpProxyConfig {
  /** A server imported from a URL: another URL. */
  readonly url?: string | undefined;
  readonly command?: string | undefined;
  readonly args?: readonly string[] | undefined;
}

const acceptEverything: jsonSchemaValidator = {
  getValidator:
    <T>() =>
    (input: unknown): JsonSchemaValidatorResult<T> => ({ valid: true, data: input as T, errorMessage: undefined }),
};

/** The way to the server: its process (stdio), or its URL (streamable HTTP, which never "exits"). */
type ServerLink = Transport & { readonly exit: string; close(): Promise<void> };

class HttpServer extends StreamableHTTPClientTransport {
  readonly exit = "";
}

function serverLink(imported: ImportedServer, config: McpProxyConfig): ServerLink {
  const url = config.url !== undefined && config.url !== "" ? config.url : imported.url;
  if (url !== undefined && url !== "") return new HttpServer(new URL(url));
  return new ServerTransport(serverCommand(imported, config), (line) => process.stderr.write(`mcp server: ${line}\n`));
}

/** A running server and its client. */
interface Connection {
  readonly client: Client;
  readonly transport: ServerLink;
}

type ProxyHandler = (input: Record<string, unknown>, context: StreamingToolContext<unknown>) => Promise<unknown>;

/** What the generated main.ts gives the generated provider factory. */
export interface McpProxy {
  readonly handlers: { readonly [handler: string]: ProxyHandler };
  readonly configure: (config: McpProxyConfig, context: ConfigureContext) => Promise<void>;
  /** Ends the server (tests; the provider's exit ends it too). */
  readonly close: () => Promise<void>;
}

function serverCommand(imported: ImportedServer, config: McpProxyConfig): ServerCommand {
  const env: Record<string, string> = { ...imported.env };
  for (const name of imported.secrets) {
    const value = (config as Record<string, unknown>)[name.toLowerCase()] ?? process.env[name];
    if (typeof value === "string" && value !== "") env[name] = value;
  }
  const command = config.command !== undefined && config.command !== "" ? config.command : undefined;
  return command ? { command, args: config.args ?? [], env } : { command: imported.command, args: imported.args, env };
}

function refusal(imported: ImportedServer, refused: readonly string[]): ToolError {
  return new ToolError(
    "invalid_arguments",
    `the MCP server's tools changed since the import: ${refused.join("; ")} (review and run: ${imported.importCommand})`,
    { details: { changes: refused.join("\n"), importCommand: imported.importCommand } },
  );
}

/**
 * The roots the server is given: the latest call's working directory. When it moves, the server is
 * told (roots/list_changed) and given a moment to ask again before the call goes out. Calls in
 * parallel from different directories share the latest one.
 */
class Roots {
  directory = process.cwd();
  #served: (() => void) | undefined;

  /** The answer to roots/list. */
  list() {
    this.#served?.();
    return { roots: [{ uri: pathToFileURL(this.directory).href, name: "working directory" }] };
  }

  async announce(client: Client, directory: string): Promise<void> {
    if (directory === this.directory) return;
    this.directory = directory;
    const asked = new Promise<void>((resolve) => {
      this.#served = resolve;
      setTimeout(resolve, 1000).unref();
    });
    await client.sendRootsListChanged().catch(() => {});
    await asked;
    this.#served = undefined;
    // The server updates its roots once our answer arrives: a moment for that.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts the server, initializes it and compares its tools with the import; `onClosed` when it exits. */
async function startServer(
  imported: ImportedServer,
  config: McpProxyConfig,
  roots: Roots,
  onClosed: () => void,
  signal?: AbortSignal,
): Promise<Connection> {
  const transport = serverLink(imported, config);
  const client = new Client(
    { name: "harness-tool-mcp-proxy", version: "0.1.0" },
    // The proxy validates each result against the tool's imported output schema (an
    // execution_failed naming the field); the SDK's own check would say invalid_arguments,
    // blaming the caller for the server's result.
    { capabilities: { roots: { listChanged: true } }, jsonSchemaValidator: acceptEverything },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => roots.list());
  // Set before connect, which chains its own handler after this one.
  transport.onclose = onClosed;
  try {
    await client.connect(transport, signal ? { signal } : {});
    const { tools } = await client.listTools(undefined, signal ? { signal } : {});
    const drift = compareSurface(imported.tools, tools as LiveTool[]);
    for (const change of drift.compatible) process.stderr.write(`mcp import drift (compatible): ${change}\n`);
    if (drift.refused.length > 0) throw refusal(imported, drift.refused);
  } catch (error) {
    await transport.close();
    throw error;
  }
  return { client, transport };
}

function startFailure(error: unknown): unknown {
  if (error instanceof ToolError) return error;
  return new ToolError("execution_failed", `the MCP server could not start: ${(error as Error).message}`, {
    retryable: true,
  });
}

/** One tools/call, its progress notifications as progress events. */
async function callTool(
  tool: ImportedTool,
  input: Record<string, unknown>,
  context: StreamingToolContext<unknown>,
  { client, transport }: Connection,
) {
  try {
    const result = await client.callTool({ name: tool.name, arguments: input }, undefined, {
      signal: context.signal,
      timeout: 2 ** 31 - 1,
      onprogress: (p) => {
        const fraction = p.total ? Math.min(1, p.progress / p.total) : undefined;
        void context.progress(p.message ?? `${p.progress}${p.total ? `/${p.total}` : ""}`, fraction).catch(() => {});
      },
    });
    return toolResult(tool, result as CallResult);
  } catch (error) {
    throw callFailure(tool, error, transport, context.signal);
  }
}

/** The proxy for `imported`. */
export function mcpProxy(imported: ImportedServer): McpProxy {
  let config: McpProxyConfig = {};
  let connection: Promise<Connection> | undefined;
  const roots = new Roots();

  /** Starts a server as the current one; it stops being current when it fails to start or exits. */
  function open(signal?: AbortSignal): Promise<Connection> {
    const started: Promise<Connection> = startServer(imported, config, roots, () => forget(started), signal);
    const forget = (which: Promise<Connection>) => {
      if (connection === which) connection = undefined;
    };
    connection = started;
    started.catch(() => forget(started));
    return started;
  }

  async function closeCurrent(): Promise<void> {
    const current = connection;
    connection = undefined;
    if (current) await current.then((c) => c.transport.close()).catch(() => {});
  }

  const handlers: Record<string, ProxyHandler> = {};
  for (const tool of imported.tools) {
    handlers[tool.handler] = async (input, context) => {
      const current = await (connection ?? open()).catch((error: unknown) => {
        throw startFailure(error);
      });
      await roots.announce(current.client, context.call.workingDirectory || process.cwd());
      return callTool(tool, input, context, current);
    };
  }

  return {
    handlers,
    configure: async (next, context) => {
      await closeCurrent();
      config = next;
      await open(context.signal);
    },
    close: closeCurrent,
  };
}

/** A tools/call result, as far as the proxy reads it. */
interface CallResult {
  readonly content?: readonly Record<string, unknown>[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

function contentBlock(block: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { type: block["type"] };
  const resource = (block["resource"] ?? {}) as Record<string, unknown>;
  const pick = (key: string, value: unknown) => {
    if (typeof value === "string") out[key] = value;
  };
  pick("text", block["text"] ?? resource["text"]);
  pick("data", block["data"] ?? resource["blob"]);
  pick("mimeType", block["mimeType"] ?? resource["mimeType"]);
  pick("uri", block["uri"] ?? resource["uri"]);
  pick("name", block["name"]);
  return out;
}

function contentText(result: CallResult): string {
  const text = (result.content ?? [])
    .map((block) => (typeof block["text"] === "string" ? block["text"] : ""))
    .filter((t) => t !== "")
    .join("\n");
  return text === "" ? "(no text)" : text;
}

function toolResult(tool: ImportedTool, result: CallResult): unknown {
  if (result.isError) throw new ToolError("execution_failed", `${tool.name}: ${contentText(result)}`);
  if (!tool.outputSchema) return { content: (result.content ?? []).map(contentBlock) };
  if (result.structuredContent === undefined)
    throw new ToolError("execution_failed", `${tool.name}: the MCP server returned no structuredContent`);
  // The server's own fault, not the provider's: named as such before the runtime's check would.
  const violations = validateValue(tool.outputSchema as unknown as JsonSchema, result.structuredContent);
  if (violations.length > 0) {
    const first = violations[0]!;
    throw new ToolError(
      "execution_failed",
      `${tool.name}: the MCP server's result does not match its own outputSchema: ${first.path || "/"} ${first.message}`,
      { details: { violations: violations.length } },
    );
  }
  return result.structuredContent;
}

function callFailure(tool: ImportedTool, error: unknown, transport: ServerLink, signal: AbortSignal): unknown {
  if (error instanceof ToolError || signal.aborted) return error;
  if (transport.exit !== "")
    return new ToolError(
      "execution_failed",
      `${tool.name}: the MCP server exited during the call (${transport.exit})`,
      {
        retryable: true,
      },
    );
  if (error instanceof McpError) {
    if (error.code === ErrorCode.InvalidParams)
      return new ToolError("invalid_arguments", `${tool.name}: ${error.message}`, { details: { mcpCode: error.code } });
    if (error.code === ErrorCode.MethodNotFound)
      return new ToolError("not_found", `${tool.name}: ${error.message}`, { details: { mcpCode: error.code } });
    if (error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed)
      return new ToolError("execution_failed", `${tool.name}: ${error.message}`, { retryable: true });
    return new ToolError("execution_failed", `${tool.name}: ${error.message}`, { details: { mcpCode: error.code } });
  }
  return new ToolError("execution_failed", `${tool.name}: ${(error as Error).message ?? String(error)}`);
}
