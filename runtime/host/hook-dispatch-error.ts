/**
 * A DispatchHook the provider failed with a gRPC status, as the host reports it: the code,
 * the message and the HookError packed in google.rpc.Status.details, if any
 * (docs/hooks.md#errors-what-the-kernel-receives).
 */
import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import type { ServiceError } from "@grpc/grpc-js";
import { StatusSchema, type Status } from "../generated/google/rpc/status_pb.js";
import { HookErrorSchema, type HookError } from "../generated/pluggableharness/hook/v1/hook_pb.js";
import { statusDetailsTrailer } from "../errors/rpc-status-details.js";

/** The HookError packed in a Status's details, if there is one. */
export function hookErrorFromStatus(status: Status): HookError | undefined {
  for (const detail of status.details) {
    const hookError = anyUnpack(detail, HookErrorSchema);
    if (hookError) return hookError;
  }
  return undefined;
}

/** A failed DispatchHook. */
export class HookDispatchError extends Error {
  override readonly name = "HookDispatchError";
  constructor(
    /** The gRPC status code. */
    readonly code: number,
    readonly details: string,
    /** The HookError from the grpc-status-details-bin trailer: its category is how the kernel files the failure. */
    readonly hookError?: HookError,
  ) {
    super(`DispatchHook failed with gRPC status ${code}: ${details}`);
  }

  /** From a grpc-js ServiceError, decoding the status details trailer. */
  static from(error: ServiceError): HookDispatchError {
    const trailer = error.metadata?.get(statusDetailsTrailer)[0];
    const hookError = trailer instanceof Buffer ? hookErrorFromStatus(fromBinary(StatusSchema, trailer)) : undefined;
    return new HookDispatchError(error.code, error.details, hookError);
  }
}
