/**
 * The kernel callbacks a handler makes (Log, Emit, RunSession, CountTokens) carry the call's trace
 * back out: each is a CLIENT span `pluggableharness.kernel.v1.KernelCallbackService/<Method>`,
 * child of the Invoke span, whose traceparent rides in the callback's metadata, so the kernel's
 * otelgrpc server span for it nests under the provider's call. No request field is recorded.
 */
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { CallTrace } from "./call-spans.js";
import { attributeKeys, grpcCodeNames, runtimeTracer } from "./span-attributes.js";
import { traceHeadersFromContext, type TraceHeaders } from "./trace-headers.js";

/** The kernel's callback service (rpc.service). */
export const kernelCallbackServiceName = "pluggableharness.kernel.v1.KernelCallbackService";

/** The callbacks (rpc.method). */
export type KernelCallbackMethod = "Log" | "Emit" | "RunSession" | "CountTokens";

/**
 * Runs one callback inside its CLIENT span; `send` gets the headers to put in the call's metadata
 * (the caller's own context when `call` is undefined, e.g. outside any call).
 */
export async function traceCallback<T>(
  call: CallTrace | undefined,
  method: KernelCallbackMethod,
  send: (headers: TraceHeaders | undefined) => Promise<T>,
): Promise<T> {
  if (call === undefined) return send(undefined);
  const span = runtimeTracer().startSpan(
    `${kernelCallbackServiceName}/${method}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [attributeKeys.rpcSystem]: "grpc",
        [attributeKeys.rpcService]: kernelCallbackServiceName,
        [attributeKeys.rpcMethod]: method,
      },
    },
    call.context,
  );
  try {
    const result = await send(traceHeadersFromContext(trace.setSpan(call.context, span)));
    if (span.isRecording()) span.setAttribute(attributeKeys.grpcStatusCode, 0);
    return result;
  } catch (error) {
    if (span.isRecording()) {
      const code = (error as { code?: unknown } | null)?.code;
      const known = typeof code === "number" && grpcCodeNames[code] !== undefined;
      if (known) span.setAttribute(attributeKeys.grpcStatusCode, code);
      span.setAttribute(attributeKeys.errorType, known ? grpcCodeNames[code]! : "unreachable");
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw error;
  } finally {
    span.end();
  }
}
