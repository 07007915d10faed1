/**
 * `ctx.reportCancelled(report)`: a stopped call's honest record of what had happened, on the
 * channel that arrives. The kernel cancels a call by cancelling the Invoke stream's context; gRPC
 * then drops whatever the provider still writes on it, so a last partial_result after a cancel
 * never reaches the kernel. The kernel's Log callback does (the kernel at f045591 implements Log
 * and answers Emit UNIMPLEMENTED), so the report is one Log line at warn carrying the call's
 * session id and, in its fields, the call id. A streaming tool also sends it on the stream, which
 * arrives where the stream is still open: the runtime's own timeout and shutdown.
 *
 * kernel: tool/protocol.md (Invoke) — a resource operation MUST make a best effort to report what
 * had happened before the cancel landed; tool/README.md (Transport & lifecycle) — the kernel
 * cancels by closing the stream; kernel-callbacks.md (Log) — session_id set when attributable.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { CancelReport, KernelCallbacks } from "../../provider/tool-context.js";
import type { InvokeInFlight } from "./invoke-in-flight.js";

/** The fields of the report's Log line: the call it is about, why it stopped, and the details. */
export function cancelReportFields(call: InvokeInFlight, report: CancelReport): JsonObject {
  return {
    cancel_report: true,
    call_id: call.info.id,
    tool: call.info.toolName,
    turn_id: call.info.turnId,
    stopped_by: call.stopReason ?? "unknown",
    ...(report.details !== undefined ? { details: report.details } : {}),
  };
}

/** The context's reportCancelled for one call. */
export function reportCancelledOf(
  call: InvokeInFlight,
  streaming: boolean,
  kernel: () => KernelCallbacks,
): (report: CancelReport) => Promise<void> {
  return (report) => {
    if (call.stopReason === undefined)
      call.providerBug("reportCancelled() was called, but the call was not stopped (check ctx.signal.aborted first)");
    if (typeof report?.message !== "string" || report.message === "")
      call.providerBug("reportCancelled() needs { message: string, details?: object } with a message");
    const fields = cancelReportFields(call, report);
    if (streaming) {
      const { cancel_report: _, ...record } = fields;
      call.sendIntermediate({
        case: "partialResult",
        value: { payload: { cancel_report: { message: report.message, ...record } } },
      } as never);
    }
    return kernel().log("warn", report.message, fields);
  };
}
