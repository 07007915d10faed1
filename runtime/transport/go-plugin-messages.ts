/**
 * go-plugin's own messages (proto package `plugin`, wire-contract.md §3), hand-coded: three tiny
 * messages are not worth a .proto beside the kernel's, and proto/ is the kernel's contract only.
 *
 * ConnInfo { uint32 service_id = 1; string network = 2; string address = 3; Knock knock = 4; }
 * ConnInfo.Knock { bool knock = 1; bool ack = 2; string error = 3; }   (multiplexing only)
 * StdioData { Channel channel = 1; bytes data = 2; }  enum Channel { INVALID = 0; STDOUT = 1; STDERR = 2; }
 * Empty {} (plugin.Empty and google.protobuf.Empty encode the same: zero bytes)
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** plugin.ConnInfo: where a broker-served gRPC server listens. */
export interface ConnInfo {
  readonly serviceId: number;
  readonly network: string;
  readonly address: string;
  /** Only hosts that multiplex the broker over the main connection send it; the kernel does not. */
  readonly knock?: { readonly knock: boolean; readonly ack: boolean; readonly error: string };
}

/** Encodes a plugin.ConnInfo. */
export function encodeConnInfo(info: ConnInfo): Uint8Array {
  const w = new BinaryWriter();
  if (info.serviceId !== 0) w.tag(1, WireType.Varint).uint32(info.serviceId);
  if (info.network !== "") w.tag(2, WireType.LengthDelimited).string(info.network);
  if (info.address !== "") w.tag(3, WireType.LengthDelimited).string(info.address);
  if (info.knock) {
    w.tag(4, WireType.LengthDelimited).fork();
    if (info.knock.knock) w.tag(1, WireType.Varint).bool(true);
    if (info.knock.ack) w.tag(2, WireType.Varint).bool(true);
    if (info.knock.error !== "") w.tag(3, WireType.LengthDelimited).string(info.knock.error);
    w.join();
  }
  return w.finish();
}

/** Decodes a plugin.ConnInfo; unknown fields are skipped, as protobuf requires. */
export function decodeConnInfo(bytes: Uint8Array): ConnInfo {
  const r = new BinaryReader(bytes);
  let serviceId = 0;
  let network = "";
  let address = "";
  let knock: ConnInfo["knock"];
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === WireType.Varint) serviceId = r.uint32();
    else if (field === 2 && wireType === WireType.LengthDelimited) network = r.string();
    else if (field === 3 && wireType === WireType.LengthDelimited) address = r.string();
    else if (field === 4 && wireType === WireType.LengthDelimited) knock = decodeKnock(r.bytes());
    else r.skip(wireType);
  }
  return knock ? { serviceId, network, address, knock } : { serviceId, network, address };
}

function decodeKnock(bytes: Uint8Array): NonNullable<ConnInfo["knock"]> {
  const r = new BinaryReader(bytes);
  let knock = false;
  let ack = false;
  let error = "";
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === WireType.Varint) knock = r.bool();
    else if (field === 2 && wireType === WireType.Varint) ack = r.bool();
    else if (field === 3 && wireType === WireType.LengthDelimited) error = r.string();
    else r.skip(wireType);
  }
  return { knock, ack, error };
}

/** plugin.StdioData.Channel. */
export const StdioChannel = { INVALID: 0, STDOUT: 1, STDERR: 2 } as const;

/** plugin.StdioData: a chunk of the plugin's own stdout or stderr. */
export interface StdioData {
  readonly channel: (typeof StdioChannel)[keyof typeof StdioChannel];
  readonly data: Uint8Array;
}

/** Encodes a plugin.StdioData. */
export function encodeStdioData(chunk: StdioData): Uint8Array {
  const w = new BinaryWriter();
  if (chunk.channel !== 0) w.tag(1, WireType.Varint).int32(chunk.channel);
  if (chunk.data.length > 0) w.tag(2, WireType.LengthDelimited).bytes(chunk.data);
  return w.finish();
}

/** Decodes a plugin.StdioData. */
export function decodeStdioData(bytes: Uint8Array): StdioData {
  const r = new BinaryReader(bytes);
  let channel = 0;
  let data: Uint8Array = new Uint8Array(0);
  while (r.pos < r.len) {
    const [field, wireType] = r.tag();
    if (field === 1 && wireType === WireType.Varint) channel = r.int32();
    else if (field === 2 && wireType === WireType.LengthDelimited) data = r.bytes();
    else r.skip(wireType);
  }
  return { channel: channel === 1 || channel === 2 ? channel : 0, data };
}

/** An empty message (plugin.Empty, google.protobuf.Empty): zero bytes on the wire. */
export const emptyMessage: Uint8Array = new Uint8Array(0);
