/**
 * The wire bytes of an InvokeResponse carrying a call's result, written straight from the
 * handler's JSON value: every call ends with one, and `toBinary` first turns the payload into
 * Struct and Value messages, then writes them through a forking writer (bench/RESULTS.md, c=32
 * CPU cuts). Two passes: the sizes of every length-delimited part, in the order they are written,
 * then the bytes into a buffer of the exact size. Field numbers from the kernel's tool.proto and
 * google/protobuf/struct.proto: InvokeResponse.event = 1, ToolEvent.result = 5,
 * ToolResult.payload = 1; Struct.fields = 1 (map entries: key = 1, value = 2); Value.null_value = 1
 * (varint), number_value = 2 (fixed64), string_value = 3, bool_value = 4 (varint),
 * struct_value = 5, list_value = 6; ListValue.values = 1. A value that is not plain JSON (undefined,
 * a non-finite number, a function, a class instance), nesting deeper than maxDepth, and a message
 * with unknown fields are left to `toBinary`.
 */
import type { InvokeResponse } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { type ScratchBuffer, varintSize, writeVarint } from "./output-chunk-encoding.js";

/** Deeper payloads take `toBinary`'s path (its own recursion, its own errors). */
const maxDepth = 64;

const tag = {
  eventLen: 0x0a,
  resultLen: 0x2a,
  payloadLen: 0x0a,
  fieldEntryLen: 0x0a,
  entryKeyLen: 0x0a,
  entryValueLen: 0x12,
  nullVarint: 0x08,
  numberFixed64: 0x11,
  stringLen: 0x1a,
  boolVarint: 0x20,
  structLen: 0x2a,
  listLen: 0x32,
  listItemLen: 0x0a,
} as const;

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A length-delimited part: its tag, its length's varint, its length. */
const framed = (length: number): number => 1 + varintSize(length) + length;

/**
 * Sizes of the parts of one payload: each Struct's, map entry's, Value's, list's and string's
 * length, pushed in the order the write pass needs them; undefined where `toBinary` must do it.
 */
class Sizer {
  readonly sizes: number[] = [];

  /** The bytes of a Struct's fields (its body). */
  struct(object: Record<string, unknown>, depth: number): number | undefined {
    if (depth > maxDepth) return undefined;
    let size = 0;
    for (const key of Object.keys(object)) {
      const at = this.sizes.push(0) - 1;
      const keyBytes = Buffer.byteLength(key, "utf8");
      this.sizes.push(keyBytes);
      const value = this.value(object[key], depth);
      if (value === undefined) return undefined;
      const entry = framed(keyBytes) + framed(value);
      this.sizes[at] = entry;
      size += framed(entry);
    }
    return size;
  }

  /** The bytes of a Value's body. */
  value(value: unknown, depth: number): number | undefined {
    const at = this.sizes.push(0) - 1;
    let size: number | undefined;
    switch (typeof value) {
      case "string": {
        const bytes = Buffer.byteLength(value, "utf8");
        this.sizes.push(bytes);
        size = framed(bytes);
        break;
      }
      case "number":
        size = Number.isFinite(value) ? 9 : undefined;
        break;
      case "boolean":
        size = 2;
        break;
      case "object":
        size = this.#objectValue(value, depth);
        break;
      default:
        size = undefined;
    }
    if (size !== undefined) this.sizes[at] = size;
    return size;
  }

  #objectValue(value: object | null, depth: number): number | undefined {
    if (value === null) return 2;
    if (Array.isArray(value)) {
      if (depth + 1 > maxDepth) return undefined;
      const at = this.sizes.push(0) - 1;
      let list = 0;
      for (const item of value) {
        const size = this.value(item, depth + 1);
        if (size === undefined) return undefined;
        list += framed(size);
      }
      this.sizes[at] = list;
      return framed(list);
    }
    if (!isPlainObject(value)) return undefined;
    const at = this.sizes.push(0) - 1;
    const struct = this.struct(value, depth + 1);
    if (struct === undefined) return undefined;
    this.sizes[at] = struct;
    return framed(struct);
  }
}

/** The write pass: the sizes in the order the Sizer pushed them. */
class Writer {
  #next = 0;
  at = 0;
  readonly #sizes: readonly number[];
  readonly #out: Buffer;

  constructor(out: Buffer, sizes: readonly number[]) {
    this.#out = out;
    this.#sizes = sizes;
  }

  len(tagByte: number, length: number): void {
    this.#out[this.at++] = tagByte;
    this.at = writeVarint(this.#out, this.at, length);
  }

  struct(object: Record<string, unknown>): void {
    for (const key of Object.keys(object)) {
      this.len(tag.fieldEntryLen, this.#sizes[this.#next++] as number);
      this.len(tag.entryKeyLen, this.#sizes[this.#next++] as number);
      this.at += this.#out.write(key, this.at, "utf8");
      this.value(object[key], tag.entryValueLen);
    }
  }

  value(value: unknown, tagByte: number): void {
    const out = this.#out;
    this.len(tagByte, this.#sizes[this.#next++] as number);
    if (typeof value === "string") {
      this.len(tag.stringLen, this.#sizes[this.#next++] as number);
      this.at += out.write(value, this.at, "utf8");
    } else if (typeof value === "number") {
      out[this.at++] = tag.numberFixed64;
      this.at = out.writeDoubleLE(value, this.at);
    } else if (typeof value === "boolean") {
      out[this.at++] = tag.boolVarint;
      out[this.at++] = value ? 1 : 0;
    } else if (value === null) {
      out[this.at++] = tag.nullVarint;
      out[this.at++] = 0;
    } else if (Array.isArray(value)) {
      this.len(tag.listLen, this.#sizes[this.#next++] as number);
      for (const item of value) this.value(item, tag.listItemLen);
    } else {
      this.len(tag.structLen, this.#sizes[this.#next++] as number);
      this.struct(value as Record<string, unknown>);
    }
  }
}

/**
 * The encoding of `response` when it is a result event, else undefined (the caller falls back to
 * `toBinary`). Byte for byte what `toBinary` writes (test/runtime/transport/result-encoding.test.ts).
 * Written into `scratch` when given: then the bytes are valid only until its next use.
 */
export function encodeResultResponse(response: InvokeResponse, scratch?: ScratchBuffer): Buffer | undefined {
  const event = response.event;
  if (event === undefined || event.event.case !== "result") return undefined;
  const result = event.event.value;
  if (response.$unknown !== undefined || event.$unknown !== undefined || result.$unknown !== undefined)
    return undefined;
  const payload = result.payload as unknown;
  const sizer = new Sizer();
  let resultBytes = 0;
  let structBytes = 0;
  if (payload !== undefined) {
    if (typeof payload !== "object" || payload === null || Array.isArray(payload) || !isPlainObject(payload))
      return undefined;
    const struct = sizer.struct(payload, 1);
    if (struct === undefined) return undefined;
    structBytes = struct;
    resultBytes = framed(struct);
  }
  const eventBytes = framed(resultBytes);
  const size = framed(eventBytes);
  const out = scratch ? scratch.take(size) : Buffer.allocUnsafe(size);
  const writer = new Writer(out, sizer.sizes);
  writer.len(tag.eventLen, eventBytes);
  writer.len(tag.resultLen, resultBytes);
  if (payload !== undefined) {
    writer.len(tag.payloadLen, structBytes);
    writer.struct(payload as Record<string, unknown>);
  }
  return out;
}
