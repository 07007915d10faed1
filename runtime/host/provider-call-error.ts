/**
 * A ToolService call the provider failed with a gRPC status, as the host reports it: the
 * code, the message and the ToolError packed in google.rpc.Status.details, if any.
 */
import { fromBinary } from "@bufbuild/protobuf";
import type { ServiceError } from "@grpc/grpc-js";
import type { ToolError } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { StatusSchema } from "../generated/google/rpc/status_pb.js";
import { statusDetailsTrailer, toolErrorFromStatus } from "../errors/rpc-status-details.js";

/** A failed ToolService call. */
export class ProviderCallError extends Error {
  override readonly name = "ProviderCallError";
  constructor(
    readonly method: string,
    /** The gRPC status code. */
    readonly code: number,
    readonly details: string,
    /** The ToolError from the grpc-status-details-bin trailer. */
    readonly toolError?: ToolError,
  ) {
    super(`${method} failed with gRPC status ${code}: ${details}`);
  }

  /** From a grpc-js ServiceError, decoding the status details trailer. */
  static from(method: string, error: ServiceError): ProviderCallError {
    const trailer = error.metadata?.get(statusDetailsTrailer)[0];
    const toolError = trailer instanceof Buffer ? toolErrorFromStatus(fromBinary(StatusSchema, trailer)) : undefined;
    return new ProviderCallError(method, error.code, error.details, toolError);
  }
}
