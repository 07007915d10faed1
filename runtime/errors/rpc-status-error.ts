/**
 * A failed unary RPC as a gRPC status: what Configure, Render and Preview throw, and what the
 * transport turns into a status with, for Configure, a ToolError packed in google.rpc.Status
 * details (type URL type.googleapis.com/pluggableharness.tool.v1.ToolError).
 */
import type { ToolError as WireToolError } from "../generated/pluggableharness/tool/v1/tool_pb.js";

/** The gRPC status codes the runtime uses (numbers as in grpc's status.proto). */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** One of GrpcCode's values. */
export type GrpcCodeValue = (typeof GrpcCode)[keyof typeof GrpcCode];

/** A unary RPC's failure: a status code, a message, and optionally a ToolError for the details. */
export class RpcStatusError extends Error {
  override readonly name = "RpcStatusError";
  constructor(
    readonly code: GrpcCodeValue,
    message: string,
    /** Packed into google.rpc.Status.details by the transport. */
    readonly toolError?: WireToolError,
  ) {
    super(message);
  }
}
