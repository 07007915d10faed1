/**
 * The door between the HookSubscriberService semantics (runtime/service/hooks) and the go-plugin
 * transport: DispatchHook on bytes in, bytes or a status out. The request stays bytes because a
 * transform's answer is cut from them (hook-response-bytes.ts); the transport packs a failure's
 * HookError into google.rpc.Status.details and knows nothing else of hooks.
 */
import type { HookError } from "../../generated/pluggableharness/hook/v1/hook_pb.js";
import type { TraceHeaders } from "../../telemetry/trace-headers.js";

/** What the transport knows of one DispatchHook besides its request. */
export interface HookCallControl {
  /** Aborted when the kernel cancels the call (or its deadline ends it on the transport's side). */
  readonly cancelled: AbortSignal;
  /** The call's gRPC deadline: the kernel's per-subscriber timeout. */
  readonly deadline?: Date;
  /** The call's propagation headers, from its metadata. */
  readonly trace?: TraceHeaders;
}

/** A DispatchHook's end: the encoded DispatchHookResponse, or a status (already through the secret exits). */
export type HookAnswer =
  | { readonly ok: true; readonly response: Uint8Array }
  | { readonly ok: false; readonly code: number; readonly message: string; readonly hookError?: HookError };

/** pluggableharness.hook.v1.HookSubscriberService as the transport calls it. Never rejects. */
export interface HookServiceCore {
  dispatchHook(request: Uint8Array, control: HookCallControl): Promise<HookAnswer>;
}
