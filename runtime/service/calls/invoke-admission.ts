/**
 * Which Invoke calls start: a call for a tool the provider lacks, one arriving while the provider
 * shuts down, or one before a required Configure is refused with its one terminal event; every
 * other call runs as an InvokeInFlight (docs/runtime.md#invoke).
 */
import { create } from "@bufbuild/protobuf";
import { wireError } from "../../errors/classify-error.js";
import { clipText, quoteInput } from "../../errors/input-error-bounds.js";
import {
  InvokeResponseSchema,
  type InvokeRequest,
  type ToolError as WireToolError,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import type { CallTrace } from "../../telemetry/call-spans.js";
import { InvokeInFlight } from "./invoke-in-flight.js";
import type { ServiceRuntime } from "./service-runtime.js";
import type { InvokeSink } from "./tool-service-core.js";

/** A call refused before it starts still gets its one terminal event (none if already cancelled). */
function refuse(rt: ServiceRuntime, sink: InvokeSink, error: WireToolError): undefined {
  if (sink.cancelled.aborted) return undefined;
  try {
    sink.send(create(InvokeResponseSchema, { event: { event: { case: "error", value: error } } }));
  } catch (thrown) {
    rt.stderr(`[WARN] harness-tool: could not send a refusal: ${String(thrown)}`);
  }
  return undefined;
}

/**
 * Starts the call `request` names, or refuses it; resolves when the call has ended. Not an async
 * function: the call's own run() is the promise, without a wrapper and an await per call.
 */
export function admitInvoke(
  rt: ServiceRuntime,
  request: InvokeRequest,
  sink: InvokeSink,
  trace: CallTrace,
): Promise<void> {
  try {
    const inFlight = admitted(rt, request, sink, trace);
    return inFlight ? inFlight.run() : Promise.resolve();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** The call to run, or undefined once it was refused. */
function admitted(
  rt: ServiceRuntime,
  request: InvokeRequest,
  sink: InvokeSink,
  trace: CallTrace,
): InvokeInFlight | undefined {
  const call = request.call;
  if (!call) return refuse(rt, sink, wireError("invalid_arguments", "InvokeRequest has no call"));
  const entry = rt.tools.get(call.toolName);
  // docs/runtime.md#invoke (its first rule, unknown tool) — not_found, naming the tools there are.
  if (!entry) {
    return refuse(
      rt,
      sink,
      wireError("not_found", `provider ${rt.provider.name} has no tool ${quoteInput(call.toolName)}`, {
        details: { tool_name: clipText(call.toolName), known_tools: [...rt.tools.keys()] },
      }),
    );
  }
  if (rt.shuttingDown())
    return refuse(rt, sink, wireError("cancelled", "the provider is shutting down", { retryable: true }));
  const config = rt.accepted();
  // docs/runtime.md#invoke-before-configure
  if (!config) {
    return refuse(
      rt,
      sink,
      wireError(
        "unknown",
        `${entry.name} was invoked before Configure, and this provider's configuration has required attributes`,
        {
          details: { error: { name: "NotConfigured", message: "Invoke before Configure" } },
        },
      ),
    );
  }
  return new InvokeInFlight(rt, entry, call, sink, config, trace);
}
