/**
 * google.rpc.Status, the payload of the `grpc-status-details-bin` trailer, with a ToolError packed
 * as an Any in its details (docs/runtime.md#the-error-surface). The message is generated from
 * vendor-proto/google/rpc/status.proto; proto/ stays the kernel's contract alone.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { anyPack, anyUnpack } from "@bufbuild/protobuf/wkt";
import { StatusSchema, type Status } from "../generated/google/rpc/status_pb.js";
import { ToolErrorSchema, type ToolError } from "../generated/pluggableharness/tool/v1/tool_pb.js";

/** The trailer grpc-go's `status.FromError(err).Details()` reads. */
export const statusDetailsTrailer = "grpc-status-details-bin";

/** The type URL of a ToolError packed into Status.details (anyPack's; docs/runtime.md#the-error-surface). */
export const toolErrorTypeUrl = `type.googleapis.com/${ToolErrorSchema.typeName}`;

/** The encoded Status of a failed call, with the ToolError (if any) packed as its one detail. */
export function statusWithToolError(code: number, message: string, toolError?: ToolError): Uint8Array {
  return toBinary(
    StatusSchema,
    create(StatusSchema, { code, message, details: toolError ? [anyPack(ToolErrorSchema, toolError)] : [] }),
  );
}

/** The ToolError packed in a Status's details, if there is one. */
export function toolErrorFromStatus(status: Status): ToolError | undefined {
  for (const detail of status.details) {
    const toolError = anyUnpack(detail, ToolErrorSchema);
    if (toolError) return toolError;
  }
  return undefined;
}
