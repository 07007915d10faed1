/**
 * google.rpc.Status, the payload of the `grpc-status-details-bin` trailer, hand-coded so that
 * proto/ stays the kernel's contract alone:
 * Status { int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3; }
 * Any { string type_url = 1; bytes value = 2; }
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { ToolErrorSchema, type ToolError } from "../generated/pluggableharness/tool/v1/tool_pb.js";

/** The trailer grpc-go's `status.FromError(err).Details()` reads. */
export const statusDetailsTrailer = "grpc-status-details-bin";

/** wire-contract.md §2: the type URL of a ToolError packed into Status.details. */
export const toolErrorTypeUrl = "type.googleapis.com/pluggableharness.tool.v1.ToolError";

/** One google.protobuf.Any. */
export interface AnyMessage {
  readonly typeUrl: string;
  readonly value: Uint8Array;
}

/** A decoded google.rpc.Status. */
export interface RpcStatus {
  readonly code: number;
  readonly message: string;
  readonly details: readonly AnyMessage[];
}

/** Encodes a google.rpc.Status. */
export function encodeRpcStatus(status: RpcStatus): Uint8Array {
  const w = new BinaryWriter();
  if (status.code !== 0) w.tag(1, WireType.Varint).int32(status.code);
  if (status.message !== "") w.tag(2, WireType.LengthDelimited).string(status.message);
  for (const any of status.details) {
    w.tag(3, WireType.LengthDelimited).fork();
    if (any.typeUrl !== "") w.tag(1, WireType.LengthDelimited).string(any.typeUrl);
    if (any.value.length > 0) w.tag(2, WireType.LengthDelimited).bytes(any.value);
    w.join();
  }
  return w.finish();
}

/** Decodes a google.rpc.Status. */
export function decodeRpcStatus(bytes: Uint8Array): RpcStatus {
  const r = new BinaryReader(bytes);
  let code = 0;
  let message = "";
  const details: AnyMessage[] = [];
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === WireType.Varint) code = r.int32();
    else if (field === 2 && wireType === WireType.LengthDelimited) message = r.string();
    else if (field === 3 && wireType === WireType.LengthDelimited) details.push(decodeAny(r.bytes()));
    else r.skip(wireType);
  }
  return { code, message, details };
}

function decodeAny(bytes: Uint8Array): AnyMessage {
  const r = new BinaryReader(bytes);
  let typeUrl = "";
  let value: Uint8Array = new Uint8Array(0);
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) typeUrl = r.string();
    else if (field === 2 && wireType === WireType.LengthDelimited) value = r.bytes();
    else r.skip(wireType);
  }
  return { typeUrl, value };
}

/** The Status for a failed call, with the ToolError (if any) packed as its one detail. */
export function statusWithToolError(code: number, message: string, toolError?: ToolError): Uint8Array {
  const details = toolError ? [{ typeUrl: toolErrorTypeUrl, value: toBinary(ToolErrorSchema, toolError) }] : [];
  return encodeRpcStatus({ code, message, details });
}

/** The ToolError packed in a Status's details, if there is one. */
export function toolErrorFromStatus(status: RpcStatus): ToolError | undefined {
  const packed = status.details.find((d) => d.typeUrl === toolErrorTypeUrl);
  return packed ? fromBinary(ToolErrorSchema, packed.value) : undefined;
}
