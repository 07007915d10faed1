/**
 * One SERVER span per HookSubscriberService/DispatchHook, the child of the kernel's subscriber span
 * when the call's metadata carries its traceparent: named
 * `pluggableharness.hook.v1.HookSubscriberService/DispatchHook`, with the RPC attributes, the hook
 * point and mode under the kernel's own keys, the outcome (ok, error, cancelled), the answer (a
 * veto's allow or deny, a transform's transformed or identity) and, on failure, the HookError's
 * category as error.type. Never the payload: it holds the conversation.
 */
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { attributeKeys, runtimeTracer, type CallOutcome } from "./span-attributes.js";
import type { CallTrace } from "./call-spans.js";
import { contextFromTraceHeaders, type TraceHeaders } from "./trace-headers.js";

/** rpc.service of hook calls. */
export const hookServiceName = "pluggableharness.hook.v1.HookSubscriberService";

const startAttributes = Object.freeze({
  [attributeKeys.rpcSystem]: "grpc",
  [attributeKeys.rpcService]: hookServiceName,
  [attributeKeys.rpcMethod]: "DispatchHook",
});

/** Starts the span of one DispatchHook. */
export function startHookSpan(headers: TraceHeaders | undefined): CallTrace {
  const parent = contextFromTraceHeaders(headers);
  const span = runtimeTracer().startSpan(
    `${hookServiceName}/DispatchHook`,
    { kind: SpanKind.SERVER, attributes: startAttributes },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/** The point and mode of a call, once the request names them (agent.hcl names). */
export function describeHook(call: CallTrace, point: string | undefined, mode: string | undefined): void {
  if (!call.span.isRecording()) return;
  if (point !== undefined) call.span.setAttribute(attributeKeys.hookPoint, point);
  if (mode !== undefined) call.span.setAttribute(attributeKeys.subscriberMode, mode);
}

/** How one DispatchHook ended. */
export interface HookSpanEnd {
  /** The gRPC status code sent. */
  readonly code: number;
  readonly outcome: CallOutcome;
  /** allow, deny, transformed, identity; absent for observe and failures. */
  readonly answer?: string;
  /** The HookError category's name (invalid_response, veto_failed, timeout, ...) on failure. */
  readonly errorType?: string;
}

/** Ends the span of one DispatchHook. */
export function endHookSpan(call: CallTrace, end: HookSpanEnd): void {
  const span = call.span;
  if (span.isRecording()) {
    span.setAttribute(attributeKeys.grpcStatusCode, end.code);
    span.setAttribute(attributeKeys.outcome, end.outcome);
    if (end.answer !== undefined) span.setAttribute(attributeKeys.hookAnswer, end.answer);
    if (end.errorType !== undefined) span.setAttribute(attributeKeys.errorType, end.errorType);
    if (end.outcome === "error") span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
