/**
 * One MCP tools/call, run as the kernel runs a call: the plan/apply gate (on request) or the
 * person's answer for an interactive tool, then Invoke with a deadline. Each intermediate event
 * becomes a progress notification (when the client sent a progressToken) and output chunks also
 * logging notifications; the terminal result becomes `structuredContent` plus a text block, a
 * ToolError an `isError` result naming its category. The client's notifications/cancelled cancels
 * the Invoke; a call the provider ends as cancelled, or a provider that dies, is an error result.
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { status as grpcStatus } from "@grpc/grpc-js";
import { durationMs } from "@bufbuild/protobuf/wkt";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import {
  OutputStream,
  ToolKind,
  type ToolEvent,
  type ToolSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { ProviderCallError, type LaunchedProvider } from "harness-tool/host";
import { providerExitReport } from "../../provider/launch-provider.js";
import { categoryName } from "../../terminal/wire-names.js";
import { metaPrefix } from "./mcp-tools.js";
import { askPerson, confirmResourceCall, type GateRefusal, previewText } from "./person-gate.js";

/** How tools/call runs calls. */
export interface CallOptions {
  /** Resource calls wait for the person's confirmation through elicitation. */
  readonly confirmResources: boolean;
  /** Every call's deadline, as agent.hcl's timeout overrides a tool's; default: the tool's default_timeout, else 10 minutes. */
  readonly callTimeoutMs?: number | undefined;
  /** CallContext.working_directory. */
  readonly cwd: string;
  /** CallContext.session_id: one per served connection. */
  readonly sessionId: string;
}

/** What the SDK gives a request handler, the parts a call uses. */
export interface CallExtra {
  readonly signal: AbortSignal;
  readonly _meta?: { progressToken?: string | number | undefined } | undefined;
  sendNotification(notification: ServerNotification): Promise<void>;
}

/** An error result: the category first in the text, and in `_meta` with the rest of the ToolError. */
export function errorResult(
  category: string,
  message: string,
  extra: { retryable?: boolean; details?: JsonObject } = {},
): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: `${category}: ${message}` }],
    _meta: { [`${metaPrefix}/error`]: { category, message, retryable: extra.retryable ?? false, ...extra } },
  };
}

function refusalResult(refusal: GateRefusal): CallToolResult {
  return errorResult(refusal.category, refusal.message);
}

/** A result payload as MCP returns it: structured, and the same as JSON text for text-only clients. */
function successResult(payload: JsonObject): CallToolResult {
  return { structuredContent: payload, content: [{ type: "text", text: JSON.stringify(payload, null, 2) }] };
}

/** A call's deadline when neither the command line nor the tool gives one. */
export const defaultCallTimeoutMs = 600_000;

/** The deadline of one call: `--call-timeout`, else the tool's suggested timeout, else ten minutes. */
function callDeadlineMs(tool: ToolSchema, options: CallOptions): number {
  if (options.callTimeoutMs !== undefined) return options.callTimeoutMs;
  return tool.defaultTimeout ? durationMs(tool.defaultTimeout) : defaultCallTimeoutMs;
}

/**
 * How long the response waits after the call's last progress notification. The MCP SDK's client
 * handles a response at once but a notification a microtask later, and drops the progress
 * handler with the response: a notification read in the same chunk as the response is lost
 * ("unknown token"). The pause puts them in different reads.
 */
const progressSettleMs = 25;

/** Sends the intermediate events of a stream as MCP notifications. */
class EventRelay {
  #progress = 0;
  #lastSentAt = 0;
  constructor(
    private readonly server: Server,
    private readonly tool: string,
    private readonly extra: CallExtra,
  ) {}

  async relay(event: ToolEvent): Promise<void> {
    const e = event.event;
    if (e.case === "outputChunk") {
      const text = new TextDecoder().decode(e.value.data);
      const stream = e.value.stream === OutputStream.STDERR ? "stderr" : "stdout";
      await this.server.sendLoggingMessage({ level: "info", logger: `${this.tool}/${stream}`, data: text });
      await this.progress(text.length > 200 ? `${text.slice(0, 200)}…` : text);
    } else if (e.case === "progress") await this.progress(e.value.message, e.value.fractionComplete);
    else if (e.case === "partialResult")
      await this.progress(`partial result: ${JSON.stringify(e.value.payload ?? {})}`);
    else if (e.case === "exitStatus")
      await this.progress(`exit status ${e.value.exitCode}${e.value.signal ? ` (signal ${e.value.signal})` : ""}`);
  }

  /** notifications/progress, only when the client asked for it; `progress` counts the events. */
  async progress(message: string, fraction?: number): Promise<void> {
    const progressToken = this.extra._meta?.progressToken;
    if (progressToken === undefined) return;
    this.#progress++;
    this.#lastSentAt = performance.now();
    const share = fraction === undefined ? "" : ` (${Math.round(fraction * 100)}%)`;
    await this.extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken, progress: this.#progress, message: `${message}${share}` },
    });
  }

  /** Waits out progressSettleMs after the last progress notification, before the response is sent. */
  async settle(): Promise<void> {
    const wait = this.#lastSentAt + progressSettleMs - performance.now();
    if (this.#progress > 0 && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Invokes the tool and reads its stream into one result. */
async function invokeTool(
  launched: LaunchedProvider,
  server: Server,
  tool: ToolSchema,
  call: { id: string; toolName: string; arguments: JsonObject },
  options: CallOptions,
  extra: CallExtra,
): Promise<CallToolResult> {
  const running = launched.invoke({
    ...call,
    callContext: { sessionId: options.sessionId, turnId: call.id, workingDirectory: options.cwd },
  });
  const deadlineMs = callDeadlineMs(tool, options);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    running.cancel();
  }, deadlineMs);
  const onAbort = () => running.cancel();
  extra.signal.addEventListener("abort", onAbort, { once: true });
  const relay = new EventRelay(server, tool.name, extra);
  try {
    for await (const event of running) {
      const e = event.event;
      if (e.case === "result" || e.case === "error") await relay.settle();
      if (e.case === "result") return successResult((e.value.payload ?? {}) as JsonObject);
      if (e.case === "error")
        return errorResult(categoryName(e.value.category), e.value.message, {
          retryable: e.value.retryable,
          ...(e.value.details ? { details: e.value.details as JsonObject } : {}),
        });
      await relay.relay(event);
    }
  } catch (e) {
    if (!(e instanceof ProviderCallError)) throw e;
    const exit = await providerExitReport(launched);
    if (exit) return errorResult("process_crashed", exit);
    // A status instead of a terminal event: the provider cancelled the call, or failed it (a provider bug).
    const category =
      e.code === grpcStatus.CANCELLED ? "cancelled" : e.code === grpcStatus.DEADLINE_EXCEEDED ? "timeout" : "unknown";
    return errorResult(category, `the provider ended the call with gRPC status ${e.code}: ${e.details}`);
  } finally {
    clearTimeout(timer);
    extra.signal.removeEventListener("abort", onAbort);
  }
  if (timedOut) return errorResult("timeout", `${tool.name} did not finish within ${deadlineMs} ms; it was cancelled`);
  if (extra.signal.aborted) return errorResult("cancelled", "the client cancelled the call");
  return errorResult("unknown", "the provider closed the stream without a result or an error (a provider bug)");
}

/** Runs one tools/call for `tool`. */
export async function callTool(
  launched: LaunchedProvider,
  server: Server,
  tool: ToolSchema,
  args: JsonObject,
  options: CallOptions,
  extra: CallExtra,
): Promise<CallToolResult> {
  const call = { id: `mcp-${randomUUID()}`, toolName: tool.name, arguments: args };
  const gated = tool.kind === ToolKind.INTERACTIVE || (tool.kind === ToolKind.RESOURCE && options.confirmResources);
  if (!gated) return invokeTool(launched, server, tool, call, options, extra);
  const timeoutMs = callDeadlineMs(tool, options);
  const preview = await previewText(launched, call, Math.min(timeoutMs, 30_000));
  if (tool.kind === ToolKind.INTERACTIVE) {
    const asked = await askPerson(server, tool, preview, extra.signal, timeoutMs);
    return "answer" in asked ? successResult(asked.answer) : refusalResult(asked.refusal);
  }
  const refusal = await confirmResourceCall(server, tool, preview, extra.signal, timeoutMs);
  return refusal ? refusalResult(refusal) : invokeTool(launched, server, tool, call, options, extra);
}
