/**
 * One SERVER span per ToolService call, the child of the kernel's CLIENT span when the call's
 * metadata carries its traceparent: named `pluggableharness.tool.v1.ToolService/<Method>` and
 * attributed after the RPC semantic conventions, plus the tool's name, kind and risk, the call id
 * and the outcome (ok, the ToolError's category, or cancelled). The service wraps each method's
 * execution in traceUnary or traceInvoke; nothing else of the service knows about spans.
 *
 * With no SDK registered the API's tracer returns non-recording spans that still carry the
 * kernel's span context, so the context reaches children and callbacks; every attribute is then
 * skipped (isRecording() is false), which keeps the telemetry-off cost to a parse and two objects.
 */
import {
  INVALID_SPAN_CONTEXT,
  INVALID_TRACEID,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanOptions,
} from "@opentelemetry/api";
import type {
  InvokeRequest,
  InvokeResponse,
  ToolError as WireToolError,
} from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { toolErrorCategories, toolErrorCategoryNames } from "../errors/tool-error.js";
import type { ToolDeclaration } from "../schema/tool-declaration.js";
import type { CancelSignal } from "../provider/cancel-signal.js";
import { attributeKeys, grpcCodeNames, runtimeTracer, type CallOutcome } from "./span-attributes.js";
import { contextFromTraceHeaders, type TraceHeaders } from "./trace-headers.js";

/** The service the spans are named after (rpc.service). */
export const toolServiceName = "pluggableharness.tool.v1.ToolService";

/**
 * The event sink of an Invoke as a span watches it: structurally the service's InvokeSink
 * (tool-service-core.ts), declared here because the service builds on telemetry, not the reverse.
 */
export interface InvokeEventSink {
  send(response: InvokeResponse): boolean | void;
  drained?(): Promise<void>;
  readonly cancelled: CancelSignal;
}

/** The traced ToolService methods (rpc.method). */
export type ToolServiceMethod = "GetSchema" | "Describe" | "Configure" | "Invoke" | "Preview" | "Render";

/** A call's span and the context (span active, baggage kept) its children and callbacks start in. */
export interface CallTrace {
  readonly span: Span;
  readonly context: Context;
}

const methods: readonly ToolServiceMethod[] = ["GetSchema", "Describe", "Configure", "Invoke", "Preview", "Render"];
// Start attributes are constant per method: built once.
const startAttributes = Object.fromEntries(
  methods.map((method) => [
    method,
    Object.freeze({
      [attributeKeys.rpcSystem]: "grpc",
      [attributeKeys.rpcService]: toolServiceName,
      [attributeKeys.rpcMethod]: method,
    }),
  ]),
) as unknown as { readonly [M in ToolServiceMethod]: Attributes };

// The span names and options are constant per method: built once.
const startOptions = Object.fromEntries(
  methods.map((method) => [
    method,
    { name: `${toolServiceName}/${method}`, options: { kind: SpanKind.SERVER, attributes: startAttributes[method] } },
  ]),
) as unknown as { readonly [M in ToolServiceMethod]: { readonly name: string; readonly options: SpanOptions } };

/**
 * The context of every call that has no trace: no kernel trace context arrived and the tracer
 * (the API's no-op one, no SDK registered) handed out a span with the invalid span context. All
 * such spans are alike, so their context is built once instead of per call.
 */
const untracedContext = trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(INVALID_SPAN_CONTEXT));

/** Starts the SERVER span of one call, as a child of the remote span `headers` name (if any). */
export function startCallSpan(method: ToolServiceMethod, headers: TraceHeaders | undefined): CallTrace {
  const parent = contextFromTraceHeaders(headers);
  const start = startOptions[method];
  const span = runtimeTracer().startSpan(start.name, start.options, parent);
  if (parent === ROOT_CONTEXT && !span.isRecording() && span.spanContext().traceId === INVALID_TRACEID)
    return { span, context: untracedContext };
  return { span, context: trace.setSpan(parent, span) };
}

/** Adds the tool's identity (and the call id) to a recording span. */
export function describeCall(span: Span, tool: ToolDeclaration | undefined, callId?: string): void {
  if (!span.isRecording()) return;
  if (tool) {
    span.setAttribute(attributeKeys.toolName, tool.name);
    span.setAttribute(attributeKeys.toolKind, tool.kind);
    span.setAttribute(attributeKeys.toolRisk, tool.risk);
  }
  if (callId !== undefined && callId !== "") span.setAttribute(attributeKeys.callId, callId);
}

/** A wire ToolError's category by its protocol name (process_crashed and strays as `unknown`). */
function categoryName(error: WireToolError): string {
  const name = toolErrorCategories.name(error.category);
  return (toolErrorCategoryNames as readonly string[]).includes(name) ? name : "unknown";
}

/** Ends a call's span with its gRPC status code and outcome. */
function endCall(span: Span, code: number, outcome: CallOutcome, errorType?: string): void {
  if (span.isRecording()) {
    span.setAttribute(attributeKeys.grpcStatusCode, code);
    span.setAttribute(attributeKeys.outcome, outcome);
    if (errorType !== undefined) span.setAttribute(attributeKeys.errorType, errorType);
    // The status carries no description: a message may quote arguments or paths.
    if (outcome === "error") span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** The status a unary method's rejection becomes on the wire (tool-service-handlers.ts). */
function failureOf(error: unknown): { code: number; errorType: string } {
  if (error instanceof Error && error.name === "RpcStatusError") {
    const { code, toolError } = error as Error & { code?: unknown; toolError?: WireToolError };
    if (typeof code === "number") {
      // The transport reports UNKNOWN as INTERNAL (docs/runtime.md#the-error-surface).
      const wireCode = code === 2 ? 13 : code;
      return {
        code: wireCode,
        errorType: toolError ? categoryName(toolError) : (grpcCodeNames[wireCode] ?? String(wireCode)),
      };
    }
  }
  return { code: 13, errorType: "INTERNAL" };
}

/**
 * Runs a unary method inside its span; `run` may be synchronous (GetSchema, Describe). The span
 * ends when the result is there, with the status the transport will send.
 */
export function traceUnary<T>(
  method: ToolServiceMethod,
  headers: TraceHeaders | undefined,
  run: (call: CallTrace) => Promise<T>,
  tool?: ToolDeclaration,
  callId?: string,
): Promise<T>;
export function traceUnary<T>(
  method: ToolServiceMethod,
  headers: TraceHeaders | undefined,
  run: (call: CallTrace) => T,
  tool?: ToolDeclaration,
  callId?: string,
): T;
export function traceUnary<T>(
  method: ToolServiceMethod,
  headers: TraceHeaders | undefined,
  run: (call: CallTrace) => T | Promise<T>,
  tool?: ToolDeclaration,
  callId?: string,
): T | Promise<T> {
  const call = startCallSpan(method, headers);
  describeCall(call.span, tool, callId);
  let result: T | Promise<T>;
  try {
    result = run(call);
  } catch (error) {
    const { code, errorType } = failureOf(error);
    endCall(call.span, code, "error", errorType);
    throw error;
  }
  if (!(result instanceof Promise)) {
    endCall(call.span, 0, "ok");
    return result;
  }
  return result.then(
    (value) => {
      endCall(call.span, 0, "ok");
      return value;
    },
    (error: unknown) => {
      const { code, errorType } = failureOf(error);
      endCall(call.span, code, "error", errorType);
      throw error;
    },
  );
}

/**
 * Runs Invoke inside its span. The outcome is read from the terminal event the call sends: a
 * result is ok, an error is its category; a stream the kernel closed without one is cancelled.
 */
export async function traceInvoke(
  headers: TraceHeaders | undefined,
  request: InvokeRequest,
  tool: ToolDeclaration | undefined,
  sink: InvokeEventSink,
  run: (sink: InvokeEventSink, call: CallTrace) => Promise<void>,
): Promise<void> {
  const call = startCallSpan("Invoke", headers);
  if (!call.span.isRecording()) {
    try {
      return await run(sink, call);
    } finally {
      call.span.end();
    }
  }
  describeCall(call.span, tool, request.call?.id);
  let terminal: "result" | WireToolError | undefined;
  const watched: InvokeEventSink = {
    send(response: InvokeResponse) {
      const event = response.event?.event;
      if (event?.case === "result") terminal = "result";
      else if (event?.case === "error") terminal = event.value;
      return sink.send(response);
    },
    cancelled: sink.cancelled,
    ...(sink.drained ? { drained: sink.drained.bind(sink) } : {}),
  };
  try {
    await run(watched, call);
  } catch (error) {
    endCall(call.span, 13, "error", "INTERNAL");
    throw error;
  }
  if (terminal === "result") endCall(call.span, 0, "ok");
  else if (terminal !== undefined) endCall(call.span, 0, "error", categoryName(terminal));
  else if (sink.cancelled.aborted) endCall(call.span, 1, "cancelled");
  else endCall(call.span, 0, "ok");
}
