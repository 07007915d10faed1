/**
 * Deep JSON in requests: the kernel (grpc-go, Go's encoding/json) sends arguments and configs
 * nested up to 10,000 levels, while protobuf-es decodes recursively and stops at its recursion
 * limit (100 messages by default: 49 JSON levels of arguments), which grpc-js then reports as
 * INTERNAL "Error deserializing request". Here every google.protobuf.Struct of a request is
 * measured first, without recursion (so at any depth a message can hold); one deeper than
 * `maxArgumentDepth` is left out of the decoded request and remembered, and the call is refused
 * with `invalid_arguments` naming the depth. Everything else is decoded with a recursion limit
 * that admits `maxArgumentDepth` levels. A short InvokeRequest in the form the kernel sends is
 * read by hand (invoke-request-decoding.ts), to the same message.
 *
 * invalid_arguments (`pluggableharness.tool.v1.ToolErrorCategory`): arguments that fail the tool's
 * contract, fed back to the model; docs/runtime.md#deep-arguments.
 */
import { fromBinary, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import type { ToolError as WireToolError } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { wireError } from "../../errors/classify-error.js";
import { readPlainInvokeRequest } from "./invoke-request-decoding.js";

/** The request Invoke decodes with readPlainInvokeRequest first (a short one: no depth to prune). */
const invokeRequestTypeName = "pluggableharness.tool.v1.InvokeRequest";

/**
 * The deepest JSON a request may carry in its arguments or config, in levels (`{}` and `[]` are
 * one level, `{"a": {}}` two). 512: far beyond any input_schema a model fills in, and well inside
 * what the runtime and a handler can walk recursively on Node's default stack (through the wire,
 * protobuf-es's decoder overflows it between 1,200 and 1,500 levels).
 */
export const maxArgumentDepth = 512;

/**
 * No request shorter than this (in bytes) can carry JSON deeper than `maxArgumentDepth`, so its
 * bytes are not walked. Each level below a container's first costs its body at least 4 bytes: the
 * Value inside it (a ListValue's element, or a Struct's map entry and that entry's value field: a
 * tag and a length each) holds a struct_value or list_value field (a tag and a length) whose body
 * is the next level. So a container nesting D levels has a body of at least 4·(D − 1) bytes, and
 * the request holds that body.
 */
export const shortestTooDeep = 4 * maxArgumentDepth;

/** protobuf-es counts every message: two per JSON level (Value, then Struct or ListValue), plus the request's own. */
const recursionLimit = 2 * maxArgumentDepth + 16;

const jsonTypes = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

/** A Struct (or Value, ListValue) field left out of a decoded message because it nested too deep. */
export interface TooDeep {
  /** The field's localName in its message ("arguments", "config"). */
  readonly field: string;
  /** How many levels it nested. */
  readonly depth: number;
}

const leftOut = new WeakMap<object, TooDeep>();

/** The field left out of `message` for nesting deeper than `maxArgumentDepth`, if one was. */
export function tooDeep(message: object): TooDeep | undefined {
  return leftOut.get(message);
}

/** The refusal of a field left out: `invalid_arguments` naming what, how deep, and the limit (`details: {depth, max_depth}`). */
export function tooDeepError(what: string, deep: TooDeep): WireToolError {
  return wireError(
    "invalid_arguments",
    `${what} nest ${deep.depth.toLocaleString("en-US")} levels deep; at most ${maxArgumentDepth} levels are accepted`,
    {
      details: { depth: deep.depth, max_depth: maxArgumentDepth },
    },
  );
}

/** What a length-delimited field of a JSON type holds. */
type JsonKind = "struct" | "value" | "list";

/**
 * A forward-only reader of one message body that allocates nothing per field (a request may hold
 * hundreds of thousands of Values): `next()` reads a field's tag and finds its payload.
 */
class FieldCursor {
  number = 0;
  wireType = 0;
  /** Where the current field begins, tag included. */
  tagStart = 0;
  /** Payload bounds of the current field (for length-delimited fields the content only). */
  start = 0;
  end = 0;
  #at: number;
  readonly #limit: number;
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array, start: number, end: number) {
    this.#bytes = bytes;
    this.#at = start;
    this.#limit = end;
  }

  /** True when a field was read; false at the end; undefined when the bytes are not well-formed. */
  next(): boolean | undefined {
    if (this.#at >= this.#limit) return false;
    this.tagStart = this.#at;
    const tag = this.#varint();
    if (tag === undefined) return undefined;
    this.number = Math.floor(tag / 8);
    this.wireType = tag % 8;
    this.start = this.#at;
    switch (this.wireType) {
      case 0:
        // Up to ten bytes (a negative int64): only its end matters here.
        while (this.#at < this.#limit && (this.#bytes[this.#at] as number) >= 0x80) this.#at++;
        if (this.#at++ >= this.#limit) return undefined;
        break;
      case 1:
        this.#at += 8;
        break;
      case 5:
        this.#at += 4;
        break;
      case 2: {
        const length = this.#varint();
        if (length === undefined) return undefined;
        this.start = this.#at;
        this.#at += length;
        break;
      }
      default:
        // Groups are deprecated and absent from these messages: protobuf-es judges them.
        return undefined;
    }
    this.end = this.#at;
    return this.#at <= this.#limit ? true : undefined;
  }

  /** A varint of at most five bytes (a tag or a length), or undefined. */
  #varint(): number | undefined {
    let value = 0;
    for (let shift = 0; shift < 35 && this.#at < this.#limit; shift += 7) {
      const b = this.#bytes[this.#at++] as number;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
    return undefined;
  }
}

/**
 * How many JSON levels an encoded Struct, Value or ListValue nests (`{}` and `[]` one level, a
 * Value holding a scalar none), walked with an explicit stack of the objects and lists still to
 * read, so any depth a message can hold is measured; undefined when the bytes are not well-formed.
 */
export function jsonDepth(bytes: Uint8Array, kind: JsonKind, start = 0, end = bytes.length): number | undefined {
  const stack: { list: boolean; start: number; end: number; depth: number }[] = [];
  let deepest = 0;
  /** A Value at [from, to) inside a container at `depth`: pushes the object or list it holds. */
  const value = (from: number, to: number, depth: number): boolean => {
    const fields = new FieldCursor(bytes, from, to);
    let ok = fields.next();
    for (; ok; ok = fields.next()) {
      if (fields.wireType === 2 && (fields.number === 5 || fields.number === 6)) {
        stack.push({ list: fields.number === 6, start: fields.start, end: fields.end, depth: depth + 1 });
      }
    }
    return ok !== undefined;
  };
  if (kind === "value") {
    if (!value(start, end, 0)) return undefined;
  } else stack.push({ list: kind === "list", start, end, depth: 1 });
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    deepest = Math.max(deepest, frame.depth);
    const fields = new FieldCursor(bytes, frame.start, frame.end);
    let ok = fields.next();
    for (; ok; ok = fields.next()) {
      if (fields.wireType !== 2 || fields.number !== 1) continue;
      if (frame.list) {
        if (!value(fields.start, fields.end, frame.depth)) return undefined;
        continue;
      }
      // A map entry of a Struct: key = 1, value = 2 (a Value).
      const entry = new FieldCursor(bytes, fields.start, fields.end);
      let entryOk = entry.next();
      for (; entryOk; entryOk = entry.next()) {
        if (entry.number === 2 && entry.wireType === 2 && !value(entry.start, entry.end, frame.depth)) return undefined;
      }
      if (entryOk === undefined) return undefined;
    }
    if (ok === undefined) return undefined;
  }
  return deepest;
}

function jsonKind(typeName: string): JsonKind {
  return typeName === "google.protobuf.Struct" ? "struct" : typeName === "google.protobuf.ListValue" ? "list" : "value";
}

/** The message type of a field holding one message per occurrence (not a list or map). */
function singularMessage(field: DescField): DescMessage | undefined {
  return field.fieldKind === "message" ? field.message : undefined;
}

/** A field left out, by its path of localNames from the request. */
interface Pruned {
  readonly path: readonly string[];
  readonly depth: number;
}

/**
 * The body of `desc` at bytes[start, end) with every JSON field deeper than the limit left out
 * (recorded in `pruned`), or undefined when none is. Descends only into singular message fields
 * of other types, which these requests nest a few levels at most.
 */
function prune(
  desc: DescMessage,
  bytes: Uint8Array,
  start: number,
  end: number,
  path: readonly string[],
  pruned: Pruned[],
): Uint8Array | undefined {
  if (path.length > 8) return undefined;
  const parts: Uint8Array[] = [];
  let copiedTo = start;
  const fields = new FieldCursor(bytes, start, end);
  let ok = fields.next();
  for (; ok; ok = fields.next()) {
    const field = fields.wireType === 2 ? desc.fields.find((d) => d.number === fields.number) : undefined;
    const message = field && singularMessage(field);
    if (!field || !message) continue;
    let replacement: Uint8Array | undefined;
    if (jsonTypes.has(message.typeName)) {
      const depth = jsonDepth(bytes, jsonKind(message.typeName), fields.start, fields.end);
      if (depth !== undefined && depth > maxArgumentDepth) {
        pruned.push({ path: [...path, field.localName], depth });
        replacement = new Uint8Array(0);
      }
    } else {
      const inner = prune(message, bytes, fields.start, fields.end, [...path, field.localName], pruned);
      if (inner) replacement = lengthDelimited(fields.number, inner);
    }
    if (replacement) {
      parts.push(bytes.subarray(copiedTo, fields.tagStart), replacement);
      copiedTo = fields.end;
    }
  }
  // Malformed bytes are left as they are: protobuf-es reports them.
  if (ok === undefined || parts.length === 0) return undefined;
  parts.push(bytes.subarray(copiedTo, end));
  return Buffer.concat(parts);
}

function pushVarint(out: number[], value: number): void {
  for (; value >= 128; value = Math.floor(value / 128)) out.push((value & 0x7f) | 0x80);
  out.push(value);
}

/** Field `number`, length-delimited, holding `body`. */
function lengthDelimited(number: number, body: Uint8Array): Uint8Array {
  const head: number[] = [];
  pushVarint(head, number * 8 + 2);
  pushVarint(head, body.byteLength);
  return Buffer.concat([Uint8Array.from(head), body]);
}

/**
 * Decodes a request of the ToolService (the transport's deserializer): a Struct nested deeper
 * than `maxArgumentDepth` is left out, and `tooDeep(parent)` names it; the rest decodes with a
 * recursion limit that admits that depth. Malformed bytes still throw, as protobuf-es says.
 */
export function decodeRequest<Desc extends DescMessage>(desc: Desc, bytes: Uint8Array): MessageShape<Desc> {
  if (desc.typeName === invokeRequestTypeName && bytes.byteLength < shortestTooDeep) {
    const plain = readPlainInvokeRequest(bytes);
    if (plain) return plain as MessageShape<Desc>;
  }
  const pruned: Pruned[] = [];
  const kept =
    bytes.byteLength < shortestTooDeep ? bytes : (prune(desc, bytes, 0, bytes.byteLength, [], pruned) ?? bytes);
  const message = fromBinary(desc, kept, { recursionLimit });
  for (const { path, depth } of pruned) {
    let parent: Record<string, unknown> | undefined = message as unknown as Record<string, unknown>;
    for (const name of path.slice(0, -1)) parent = parent?.[name] as Record<string, unknown> | undefined;
    if (parent && !leftOut.has(parent)) leftOut.set(parent, { field: path.at(-1) as string, depth });
  }
  return message;
}
