/**
 * google.rpc.Status for a failed DispatchHook, with the kernel's HookError packed as its one detail
 * (type URL type.googleapis.com/pluggableharness.hook.v1.HookError). Its own module, loaded by the
 * first failed hook call: a provider's start-up boots no hook.proto descriptor.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { StatusSchema } from "../generated/google/rpc/status_pb.js";
import { HookErrorSchema, type HookError } from "../generated/pluggableharness/hook/v1/hook_pb.js";

/** The encoded Status of a failed DispatchHook. */
export function statusWithHookError(code: number, message: string, hookError: HookError): Uint8Array {
  return toBinary(
    StatusSchema,
    create(StatusSchema, { code, message, details: [anyPack(HookErrorSchema, hookError)] }),
  );
}
