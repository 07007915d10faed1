/**
 * pluggableharness.hook.v1.HookSubscriberService as handlers shaped for grpc-js, on the same
 * server (and so the same go-plugin connection) as ToolService, delegating to the
 * HookServiceCore: the request and the response stay bytes (the core cuts a transform's answer
 * from the request's), a failure becomes a status with its HookError packed into
 * google.rpc.Status.details, and the kernel's cancel and the call's deadline reach the core.
 */
import type { MethodDefinition, sendUnaryData, ServerUnaryCall } from "@grpc/grpc-js";
import { StatusTrailers } from "./status-trailers.js";
import type { HookSubscriberService } from "../generated/pluggableharness/hook/v1/hook_pb.js";
import type { HookServiceCore } from "../service/hooks/hook-service-core.js";
import { traceHeadersFromMetadata } from "../telemetry/trace-headers.js";
import { rawMethod, type RawServiceHandlers } from "./grpc-service-definition.js";
import { hostLog } from "./host-log.js";
import { loadStatusDetails } from "./tool-service-handlers.js";
import { stackOf } from "../errors/classify-error.js";

/** The HookError packing, loaded by the first failed hook call. */
let hookStatus: Promise<typeof import("../errors/hook-status-details.js")> | undefined;
const loadHookStatus = () => (hookStatus ??= import("../errors/hook-status-details.js"));

/** The method's path (hook.proto); test/runtime/service/hooks checks it against the generated descriptor. */
export const dispatchHookPath = "/pluggableharness.hook.v1.HookSubscriberService/DispatchHook";

/**
 * HookSubscriberService's grpc-js definition, on raw bytes, keyed by the generated descriptor's
 * rpcs (a type-only import: start-up boots no hook.proto descriptor).
 */
export const hookServiceDefinition: {
  readonly [K in keyof (typeof HookSubscriberService)["method"]]: MethodDefinition<Uint8Array, Uint8Array>;
} = {
  dispatchHook: rawMethod(dispatchHookPath, { requestStream: false, responseStream: false }),
};

/** The grpc-js implementation of HookSubscriberService: its rpcs and their kinds checked against the descriptor. */
export function hookServiceHandlers(core: HookServiceCore): RawServiceHandlers<typeof HookSubscriberService> {
  return {
    dispatchHook: (call: ServerUnaryCall<Uint8Array, Uint8Array>, callback: sendUnaryData<Uint8Array>) => {
      const cancelled = new AbortController();
      call.on("cancelled", () => cancelled.abort(new Error("the kernel cancelled the hook call")));
      const deadline = call.getDeadline();
      const trace = traceHeadersFromMetadata(call.metadata);
      const when = deadline instanceof Date ? deadline : new Date(deadline);
      core
        .dispatchHook(call.request, {
          cancelled: cancelled.signal,
          ...(Number.isFinite(when.getTime()) ? { deadline: when } : {}),
          ...(trace ? { trace } : {}),
        })
        .then(async (answer) => {
          if (answer.ok) return callback(null, answer.response);
          const trailers = new StatusTrailers();
          if (answer.hookError) {
            const [{ statusDetailsTrailer }, { statusWithHookError }] = await Promise.all([
              loadStatusDetails(),
              loadHookStatus(),
            ]);
            trailers.set(
              statusDetailsTrailer,
              Buffer.from(statusWithHookError(answer.code, answer.message, answer.hookError)),
            );
          }
          callback({ code: answer.code, details: answer.message, metadata: trailers.asMetadata() });
        })
        .catch((error: unknown) => {
          // The core never rejects; this is the runtime's own bug, reported and survived.
          hostLog("error", "HookSubscriberService.DispatchHook failed inside the runtime", {
            error: stackOf(error),
          });
          callback({ code: 13, details: "internal error in the hook service" });
        });
    },
  };
}
