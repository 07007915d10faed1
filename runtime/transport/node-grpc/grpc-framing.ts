/**
 * gRPC's message framing over HTTP/2 (gRPC's PROTOCOL-HTTP2: Length-Prefixed-Message): a flag byte
 * (1 = compressed with the call's grpc-encoding), a 4-byte big-endian length, the message bytes.
 * The reader takes DATA frames as they come and yields whole messages, refusing one longer than
 * the limit before buffering it.
 */
import { gunzipSync, inflateSync } from "node:zlib";

/** The 5-byte prefix and the message, in one buffer (the message is copied once, here). */
export function frameMessage(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.byteLength);
  out[0] = 0;
  out.writeUInt32BE(message.byteLength, 1);
  out.set(message, 5);
  return out;
}

/** A message too large for the limit: the call ends RESOURCE_EXHAUSTED with this message. */
export class MessageTooLarge extends Error {
  override readonly name = "MessageTooLarge";
}

/**
 * Incremental Length-Prefixed-Message reader. `maxLength` -1 admits any length (up to 2^32-1, the
 * prefix's range); `encoding` is the call's grpc-encoding, for messages flagged compressed.
 */
export class MessageReader {
  readonly #maxLength: number;
  readonly #encoding: string;
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(maxLength: number, encoding = "identity") {
    this.#maxLength = maxLength;
    this.#encoding = encoding;
  }

  /** Takes one DATA chunk; returns the messages it completed (throws MessageTooLarge or a decode error). */
  push(chunk: Buffer): Buffer[] {
    this.#pending.push(chunk);
    this.#pendingBytes += chunk.byteLength;
    const messages: Buffer[] = [];
    for (;;) {
      if (this.#pendingBytes < 5) break;
      const head = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : this.#join();
      const length = head.readUInt32BE(1);
      if (this.#maxLength !== -1 && length > this.#maxLength) {
        throw new MessageTooLarge(`Received message larger than max (${length} vs. ${this.#maxLength})`);
      }
      if (this.#pendingBytes < 5 + length) break;
      const all = this.#pending.length === 1 ? head : this.#join();
      const compressed = all[0] === 1;
      const body = all.subarray(5, 5 + length);
      messages.push(compressed ? this.#decompress(body) : body);
      const rest = all.subarray(5 + length);
      this.#pending = rest.byteLength > 0 ? [rest] : [];
      this.#pendingBytes = rest.byteLength;
    }
    return messages;
  }

  /** True when a message was begun and not finished (the peer half-closed mid-message). */
  get partial(): boolean {
    return this.#pendingBytes > 0;
  }

  #join(): Buffer {
    const joined = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [joined];
    return joined;
  }

  #decompress(body: Buffer): Buffer {
    if (this.#encoding === "gzip") return gunzipSync(body);
    if (this.#encoding === "deflate") return inflateSync(body);
    throw new Error(`a compressed message with grpc-encoding "${this.#encoding}", which this server does not take`);
  }
}

/** Milliseconds per grpc-timeout unit. */
function timeoutUnitMs(unit: number): number | undefined {
  switch (unit) {
    case 0x48: // H
      return 3_600_000;
    case 0x4d: // M
      return 60_000;
    case 0x53: // S
      return 1000;
    case 0x6d: // m
      return 1;
    case 0x75: // u
      return 0.001;
    case 0x6e: // n
      return 0.000001;
    default:
      return undefined;
  }
}

/** grpc-timeout's grammar, with the whitespace it has always tolerated. */
const grpcTimeoutPattern = /^(\d{1,8})\s*([HMSmun])$/;

/**
 * gRPC's grpc-timeout (an integer of up to 8 digits and a unit) in milliseconds; undefined when
 * malformed. It comes with every call the kernel makes, as digits and a unit: that form is read by
 * hand, 51–79 ns a parse against 215–288 ns for the regex match (bench/RESULTS.md, "Where the
 * deadline's price goes": under 1% of a c=32 call, kept since a property test ties the two);
 * anything else goes through the grammar.
 */
export function parseGrpcTimeout(value: string): number | undefined {
  const last = value.length - 1;
  const scale = timeoutUnitMs(value.charCodeAt(last));
  if (scale !== undefined && last >= 1 && last <= 8) {
    let amount = 0;
    let at = 0;
    for (; at < last; at++) {
      const digit = value.charCodeAt(at) - 0x30;
      if (digit < 0 || digit > 9) break;
      amount = amount * 10 + digit;
    }
    if (at === last) return amount * scale;
  }
  const match = grpcTimeoutPattern.exec(value.trim());
  return match ? Number(match[1]) * (timeoutUnitMs((match[2] as string).charCodeAt(0)) as number) : undefined;
}
