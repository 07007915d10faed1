/**
 * The wire bytes of an InvokeResponse carrying one output chunk, written in one pass: the bulk of a
 * streaming tool's traffic. protobuf-es's `toBinary` copies the data once per nesting level
 * (OutputChunk in ToolEvent in InvokeResponse) and once more to finish; here the data is copied
 * once into a buffer of the exact size (grpc-js then copies it into its frame), or into a scratch
 * buffer the caller reuses (the server's serializer: grpc-js copies what it returns into its frame
 * before it serializes the next message, so the stream allocates one buffer per chunk, not two,
 * and holds less garbage for the collector to find; bench/RESULTS.md, streams). Field numbers from
 * the kernel's tool.proto: InvokeResponse.event = 1, ToolEvent.output_chunk = 1,
 * OutputChunk.stream = 1 (varint), OutputChunk.data = 2 (bytes). Anything else, and any message
 * with unknown fields, is left to `toBinary`.
 */
import type { InvokeResponse } from "../generated/pluggableharness/tool/v1/tool_pb.js";

/** Bytes of a varint. */
export function varintSize(value: number): number {
  let size = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) size++;
  return size;
}

/** Writes a varint at `offset`; returns the offset after it. */
export function writeVarint(target: Buffer, offset: number, value: number): number {
  let at = offset;
  let v = value;
  while (v >= 0x80) {
    target[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  target[at++] = v;
  return at;
}

/** Field 1 or 2 with wire type LEN (2) or VARINT (0): one byte each. */
const tag = { eventLen: 0x0a, outputChunkLen: 0x0a, streamVarint: 0x08, dataLen: 0x12 } as const;

/** A buffer reused across calls: a view of `size` bytes of it, valid until the next call. */
export class ScratchBuffer {
  #buffer: Buffer;
  readonly #keepBytes: number;

  /** Keeps a buffer of at most `keepBytes` (a larger request gets a buffer of its own). */
  constructor(keepBytes: number) {
    this.#keepBytes = keepBytes;
    this.#buffer = Buffer.allocUnsafe(0);
  }

  take(size: number): Buffer {
    if (size > this.#keepBytes) return Buffer.allocUnsafe(size);
    if (size > this.#buffer.byteLength) this.#buffer = Buffer.allocUnsafe(this.#keepBytes);
    return this.#buffer.subarray(0, size);
  }
}

/**
 * The encoding of `response` when it is a plain output chunk event, else undefined (the caller
 * falls back to `toBinary`). Byte for byte what `toBinary` writes (test/runtime/transport/wire-codecs.test.ts).
 * Written into `scratch` when given: then the bytes are valid only until its next use.
 */
export function encodeOutputChunkResponse(response: InvokeResponse, scratch?: ScratchBuffer): Buffer | undefined {
  const event = response.event;
  if (event === undefined || event.event.case !== "outputChunk") return undefined;
  const chunk = event.event.value;
  if (response.$unknown !== undefined || event.$unknown !== undefined || chunk.$unknown !== undefined) return undefined;
  const stream = chunk.stream;
  const data = chunk.data;
  // A negative enum value is a ten-byte varint: not worth a path of its own.
  if (stream < 0) return undefined;
  // proto3: a zero enum and empty bytes are not written.
  const streamBytes = stream === 0 ? 0 : 1 + varintSize(stream);
  const dataBytes = data.byteLength === 0 ? 0 : 1 + varintSize(data.byteLength) + data.byteLength;
  const chunkBytes = streamBytes + dataBytes;
  const eventBytes = 1 + varintSize(chunkBytes) + chunkBytes;
  const size = 1 + varintSize(eventBytes) + eventBytes;
  const out = scratch ? scratch.take(size) : Buffer.allocUnsafe(size);
  let at = 0;
  out[at++] = tag.eventLen;
  at = writeVarint(out, at, eventBytes);
  out[at++] = tag.outputChunkLen;
  at = writeVarint(out, at, chunkBytes);
  if (stream !== 0) {
    out[at++] = tag.streamVarint;
    at = writeVarint(out, at, stream);
  }
  if (data.byteLength > 0) {
    out[at++] = tag.dataLen;
    at = writeVarint(out, at, data.byteLength);
    out.set(data, at);
  }
  return out;
}
