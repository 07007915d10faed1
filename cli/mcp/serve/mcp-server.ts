/**
 * A launched, configured provider served as an MCP server over stdio with the official MCP SDK:
 * tools/list from its GetSchema, tools/call through tool-call.ts, the handler's ctx.log lines as
 * logging notifications. Stdout carries nothing but MCP's JSON-RPC; everything else goes to stderr.
 * The server ends when the client closes stdin (resolving 0) or the provider exits (resolving 1).
 */
import type { Readable, Writable } from "node:stream";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "@bufbuild/protobuf";
import type { ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { LogLevel } from "harness-tool/generated/pluggableharness/log/v1/log_pb.js";
import type { LogRequest } from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import type { LaunchedProvider } from "harness-tool/host";
import { describeExit } from "harness-tool/host";
import { mcpTool } from "./mcp-tools.js";
import { type CallOptions, callTool, errorResult } from "./tool-call.js";

/** The MCP logging level of a provider's log level. */
const levels: { readonly [level: number]: LoggingLevel } = {
  [LogLevel.TRACE]: "debug",
  [LogLevel.DEBUG]: "debug",
  [LogLevel.INFO]: "info",
  [LogLevel.WARN]: "warning",
  [LogLevel.ERROR]: "error",
};

/** The MCP server of one provider, created before the launch so the provider's log can reach it. */
export function createMcpServer(name: string, version: string): Server {
  return new Server(
    { name, version },
    {
      capabilities: { tools: {}, logging: {} },
      instructions: `The tools of the tool provider ${name}, served by harness-tool mcp serve.`,
    },
  );
}

/** A handler's ctx.log entry (the kernel's Log callback) as a logging notification, once connected. */
export function relayKernelLog(server: Server, request: LogRequest): void {
  const entry = request.entry;
  if (!entry || !server.transport) return;
  const level = levels[entry.level] ?? "info";
  const data = { message: entry.message, ...(entry.fields ?? {}) };
  server.sendLoggingMessage({ level, logger: entry.logger || "provider", data }).catch(() => undefined);
}

/** Where the server reads and writes, and what ends it. */
export interface ServeStreams {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly err: Writable;
}

/** How long a provider's exit waits for the calls in flight to send their error results. */
const answerInFlightMs = 5000;

/** Registers tools/list and tools/call on `server`; returns the calls in flight. */
function addToolHandlers(
  server: Server,
  launched: LaunchedProvider,
  tools: readonly ToolSchema[],
  options: CallOptions,
): Set<Promise<unknown>> {
  const listed = tools.map(mcpTool);
  const inFlight = new Set<Promise<unknown>>();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool)
      return errorResult(
        "not_found",
        `no tool named ${request.params.name}: the provider has ${tools.map((t) => t.name).join(", ")}`,
      );
    const call = callTool(launched, server, tool, (request.params.arguments ?? {}) as JsonObject, options, extra).catch(
      // An elicitation the client failed or timed out, a Preview or Invoke that could not start: a result, not a protocol error.
      (e: unknown) =>
        errorResult(extra.signal.aborted ? "cancelled" : "unknown", e instanceof Error ? e.message : String(e)),
    );
    inFlight.add(call);
    // Deleted once the SDK has sent the response (a later turn than the call's own settling).
    void call.finally(() => setImmediate(() => inFlight.delete(call)));
    return call;
  });
  return inFlight;
}

/** Resolves once `calls` have settled and their responses are out, or after `ms`. */
async function settled(calls: Set<Promise<unknown>>, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (calls.size > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Serves until the client closes stdin (resolves 0) or the provider exits (resolves 1, with how it
 * ended on `err`).
 */
export async function serveOverStdio(
  server: Server,
  launched: LaunchedProvider,
  tools: readonly ToolSchema[],
  options: CallOptions,
  streams: ServeStreams,
): Promise<number> {
  const inFlight = addToolHandlers(server, launched, tools, options);
  const transport = new StdioServerTransport(streams.stdin, streams.stdout);
  let over = false;
  const ended = new Promise<number>((settle) => {
    const resolve = (code: number) => {
      over = true;
      settle(code);
    };
    // The SDK's stdio transport does not watch for the end of stdin: the client closing it ends the server.
    streams.stdin.once("end", () => resolve(0));
    streams.stdin.once("close", () => resolve(0));
    server.onclose = () => resolve(0);
    void launched.exited.then(async (exit) => {
      if (over) return;
      streams.err.write(`harness-tool mcp serve: the provider exited: ${describeExit(exit)}\n`);
      // The calls it was running answer first: each an error result saying how it exited.
      await settled(inFlight, answerInFlightMs);
      resolve(1);
    });
  });
  await server.connect(transport);
  const code = await ended;
  await server.close().catch(() => undefined);
  return code;
}
