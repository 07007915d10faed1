/**
 * The kernel's callback service as the ToolService semantics see it. The go-plugin transport
 * implements it over broker ID 1; tests implement it in memory. Requests are complete messages:
 * binding the call's session id is the semantics' job.
 */
import type {
  CountTokensRequest,
  CountTokensResult,
  EmitRequest,
  EmitResult,
  LogRequest,
  RunSessionRequest,
  KernelCallbackService,
  RunSessionResult,
} from "../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import type { ServiceCaller } from "../../rpc/service-shape.js";
import type { TraceHeaders } from "../../telemetry/trace-headers.js";

/**
 * KernelCallbackService, one method per rpc (derived from the generated descriptor: an rpc that
 * drifts from the proto fails to compile here). Each rejects when the kernel cannot be reached.
 * `trace`: propagation headers for the call's metadata (the caller's span, runtime/telemetry).
 */
export interface KernelClient extends ServiceCaller<typeof KernelCallbackService> {
  log(request: LogRequest, trace?: TraceHeaders): Promise<void>;
  emit(request: EmitRequest, trace?: TraceHeaders): Promise<EmitResult>;
  runSession(request: RunSessionRequest, signal?: AbortSignal, trace?: TraceHeaders): Promise<RunSessionResult>;
  countTokens(request: CountTokensRequest, signal?: AbortSignal, trace?: TraceHeaders): Promise<CountTokensResult>;
}
