/**
 * Failures of the unary RPCs (Configure, Preview, Render) as RpcStatusError, always with the
 * classified ToolError for the status details.
 *
 * docs/runtime.md#the-error-surface — an unexpected exception is never gRPC UNKNOWN: INTERNAL, with
 * the raw error in the ToolError's details.
 */
import type { ToolError as WireToolError } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { ToolErrorCategory } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { GrpcCode, RpcStatusError, type GrpcCodeValue } from "./rpc-status-error.js";
import { normalizeError, type NormalizeErrorOptions } from "./classify-error.js";

/**
 * The status code of each category; the ToolError in the details keeps the exact category.
 * `concurrency_conflict` is ABORTED (gRPC's code for a concurrency conflict the caller retries at
 * a higher level), never UNAVAILABLE: the kernel's gRPC mapping reserves UNAVAILABLE for
 * `process_crashed`, the plugin process gone.
 */
const codeOf: { readonly [c: number]: GrpcCodeValue } = {
  [ToolErrorCategory.INVALID_ARGUMENTS]: GrpcCode.INVALID_ARGUMENT,
  [ToolErrorCategory.NOT_FOUND]: GrpcCode.NOT_FOUND,
  [ToolErrorCategory.PERMISSION_DENIED]: GrpcCode.PERMISSION_DENIED,
  [ToolErrorCategory.EXECUTION_FAILED]: GrpcCode.FAILED_PRECONDITION,
  [ToolErrorCategory.TIMEOUT]: GrpcCode.DEADLINE_EXCEEDED,
  [ToolErrorCategory.CONCURRENCY_CONFLICT]: GrpcCode.ABORTED,
  [ToolErrorCategory.CANCELLED]: GrpcCode.CANCELLED,
  [ToolErrorCategory.UNKNOWN]: GrpcCode.INTERNAL,
};

/** A classified ToolError as a status. */
export function statusFor(error: WireToolError): RpcStatusError {
  return new RpcStatusError(codeOf[error.category] ?? GrpcCode.INTERNAL, error.message, error);
}

/**
 * Whatever a unary handler threw, as a status: an RpcStatusError (also one from another copy of
 * this package) keeps its code, message and ToolError; anything else is normalized (normalizeError).
 */
export function unaryFailure(thrown: unknown, options: NormalizeErrorOptions): RpcStatusError {
  if (thrown instanceof RpcStatusError) return thrown;
  return statusFor(normalizeError(thrown, options));
}
