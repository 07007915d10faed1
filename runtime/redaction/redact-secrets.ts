/**
 * Secret redaction: the values of sensitive config attributes are replaced by a marker in
 * everything the provider sends (error messages and details, results, partial results, output
 * chunks, log lines, emitted payloads, Render and Preview trees, stderr diagnostics), whatever the
 * handler does.
 *
 * seed: Configure — a plugin MUST NOT echo a received secret into an Emit'd event, Render output,
 * log line, or error message.
 */
import type { DescField, DescMessage, MessageShape } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { minimumSubstringSecretLength } from "./collect-secrets.js";

/** What replaces a secret. */
export const redactionMarker = "[REDACTED]";

/** Redacts secrets from strings, bytes and JSON-like values. */
export interface SecretRedactor {
  /** False when there is nothing to redact: every method is then the identity. */
  readonly active: boolean;
  string(text: string): string;
  bytes(data: Uint8Array): Uint8Array;
  /** Deep: strings, object keys and byte arrays inside arrays and plain JSON-like objects. */
  deep<T>(value: T): T;
  /**
   * A protobuf-es message, walked by its schema: string and bytes fields, map keys, and the JSON
   * inside google.protobuf.Struct/Value/ListValue fields (keys included). Field names, oneof cases
   * and enums are structure, never text: they are left alone. Unchanged parts are shared.
   */
  message<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): MessageShape<Desc>;
  /** A redactor for one chunked byte stream, which finds secrets split across chunks. */
  stream(): StreamRedactor;
}

/**
 * Redacts one chunked byte stream, holding back a tail that could be the start of a secret (at
 * most the longest secret form less one byte). The held tail waits for the next chunk of the
 * stream, whatever other events go out meanwhile, until `flush()`.
 */
export interface StreamRedactor {
  /** The redacted bytes that are safe to send now (possibly empty). */
  push(chunk: Uint8Array): Uint8Array;
  /** The redacted rest; call when the stream ends. */
  flush(): Uint8Array;
}

/**
 * The forms in which a secret may appear in text: raw, JSON-escaped, URL-encoded. The one list:
 * the redactor here and the supervisor's byte filter (runtime/supervisor) both match these.
 */
export function secretForms(secret: string): string[] {
  const out = new Set<string>([secret]);
  out.add(JSON.stringify(secret).slice(1, -1));
  // A JSON text that was itself JSON-escaped (a stringified details object inside a message).
  out.add(JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1));
  try {
    out.add(encodeURIComponent(secret));
  } catch {
    // A lone surrogate cannot be URL-encoded; the raw form is still covered.
  }
  return [...out];
}

type Range = [start: number, end: number];

function mergeRanges(ranges: Range[]): Range[] {
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: Range[] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    // Overlapping or touching matches become one marker, so no fragment of either survives.
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

function findInString(text: string, needles: readonly string[]): Range[] | undefined {
  let ranges: Range[] | undefined;
  for (const needle of needles) {
    // Step by one so that overlapping occurrences are all found.
    for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) {
      (ranges ??= []).push([i, i + needle.length]);
    }
  }
  return ranges && mergeRanges(ranges);
}

/**
 * Where the bytes that could still become a secret begin: the start of the longest tail of `data`
 * that is the beginning (not the whole) of a needle; `data.length` when no tail is. Only such a
 * tail needs holding back, so a stream sends everything else at once and an event that comes
 * between two chunks (exit_status, progress, a partial result) delays nothing else.
 */
function pendingStart(data: Buffer, needles: readonly Buffer[]): number {
  let start = data.length;
  for (const needle of needles) {
    const first = needle[0] as number;
    for (
      let at = data.indexOf(first, Math.max(0, data.length - (needle.length - 1)));
      at !== -1 && at < start;
      at = data.indexOf(first, at + 1)
    ) {
      if (data.compare(needle, 0, data.length - at, at) === 0) {
        start = at;
        break;
      }
    }
  }
  return start;
}

function findInBytes(data: Buffer, needles: readonly Buffer[]): Range[] | undefined {
  let ranges: Range[] | undefined;
  for (const needle of needles) {
    for (let i = data.indexOf(needle); i !== -1; i = data.indexOf(needle, i + 1)) {
      (ranges ??= []).push([i, i + needle.length]);
    }
  }
  return ranges && mergeRanges(ranges);
}

const markerBytes = Buffer.from(redactionMarker, "utf8");

function replaceBytes(data: Buffer, ranges: readonly Range[]): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    parts.push(data.subarray(at, start), markerBytes);
    at = end;
  }
  parts.push(data.subarray(at));
  return Buffer.concat(parts);
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function isPlainRecord(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const identity: SecretRedactor = {
  active: false,
  string: (text) => text,
  bytes: (data) => data,
  deep: (value) => value,
  message: (_schema, message) => message,
  stream: () => ({ push: (chunk) => chunk, flush: () => new Uint8Array(0) }),
};

/** A redactor for these secret values (empty strings are ignored). */
export function createRedactor(secrets: Iterable<string>): SecretRedactor {
  const whole = new Set<string>();
  const needles = new Set<string>();
  for (const secret of secrets) {
    if (secret === "") continue;
    whole.add(secret);
    if (secret.length >= minimumSubstringSecretLength) for (const v of secretForms(secret)) needles.add(v);
  }
  if (whole.size === 0) return identity;
  // Longest first only matters for readability of the ranges; merging makes the result order-free.
  const stringNeedles = [...needles].sort((a, b) => b.length - a.length);
  const byteNeedles = stringNeedles.map((n) => Buffer.from(n, "utf8"));

  const string = (text: string): string => {
    if (whole.has(text)) return redactionMarker;
    const ranges = findInString(text, stringNeedles);
    if (!ranges) return text;
    let out = "";
    let at = 0;
    for (const [start, end] of ranges) {
      out += text.slice(at, start) + redactionMarker;
      at = end;
    }
    return out + text.slice(at);
  };

  const bytes = (data: Uint8Array): Uint8Array => {
    if (data.byteLength === 0 || byteNeedles.length === 0) return data;
    const buf = asBuffer(data);
    const ranges = findInBytes(buf, byteNeedles);
    return ranges ? new Uint8Array(replaceBytes(buf, ranges)) : data;
  };

  const deep = <T>(value: T): T => deepRedact(value, string, bytes) as T;
  const leaf: Leaf = { string, bytes, json: (value) => deepRedact(value, string, bytes) };
  const message = <Desc extends DescMessage>(schema: Desc, value: MessageShape<Desc>): MessageShape<Desc> =>
    redactMessage(schema, value as unknown as MessageObject, leaf) as unknown as MessageShape<Desc>;

  const stream = (): StreamRedactor => {
    let carry: Buffer = Buffer.alloc(0);
    return {
      push(chunk) {
        const buf = carry.length === 0 ? asBuffer(chunk) : Buffer.concat([carry, asBuffer(chunk)]);
        // Any occurrence not yet complete starts where a tail begins that a needle starts with.
        let cut = pendingStart(buf, byteNeedles);
        const ranges = findInBytes(buf, byteNeedles) ?? [];
        const done: Range[] = [];
        for (const r of ranges) {
          if (r[0] >= cut) break;
          if (r[1] > cut) {
            // A match crossing the cut is held back whole (a longer, overlapping secret may still be
            // completing); one at the very start is sent, so the carry stays bounded.
            if (r[0] > 0) cut = r[0];
            else {
              cut = r[1];
              done.push(r);
            }
            break;
          }
          done.push(r);
        }
        carry = Buffer.from(buf.subarray(cut));
        const head = buf.subarray(0, cut);
        return new Uint8Array(done.length > 0 ? replaceBytes(head, done) : Buffer.from(head));
      },
      flush() {
        const rest = carry;
        carry = Buffer.alloc(0);
        return bytes(rest);
      },
    };
  };

  return { active: true, string, bytes, deep, message, stream };
}

function deepRedact(value: unknown, string: (s: string) => string, bytes: (b: Uint8Array) => Uint8Array): unknown {
  if (typeof value === "string") return string(value);
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof Uint8Array) return bytes(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = deepRedact(value[i], string, bytes);
      if (next !== value[i]) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  if (!isPlainRecord(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const field = value[key];
    const nextKey = key === "$typeName" ? key : string(key);
    const next = deepRedact(field, string, bytes);
    if (next !== field || nextKey !== key) {
      copy ??= { ...value };
      if (nextKey !== key) delete copy[key];
      copy[nextKey] = next;
    }
  }
  return copy ?? value;
}

/** How the leaves of a message are redacted. */
interface Leaf {
  string(text: string): string;
  bytes(data: Uint8Array): Uint8Array;
  /** A JSON value (a Struct, Value or ListValue field), object keys included. */
  json(value: unknown): unknown;
}

type MessageObject = Record<string, unknown>;

/** The JSON well-known types: protobuf-es represents their fields as plain JSON values. */
const jsonTypes = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);
/** Wrappers are unboxed to their scalar by protobuf-es. */
const wrapperTypes = new Set(["google.protobuf.StringValue", "google.protobuf.BytesValue"]);

function redactScalar(scalar: ScalarType, value: unknown, leaf: Leaf): unknown {
  if (scalar === ScalarType.STRING && typeof value === "string") return leaf.string(value);
  if (scalar === ScalarType.BYTES && value instanceof Uint8Array) return leaf.bytes(value);
  return value;
}

function redactMessageField(desc: DescMessage, value: unknown, leaf: Leaf): unknown {
  if (value === undefined || value === null) return value;
  if (jsonTypes.has(desc.typeName)) return leaf.json(value);
  if (wrapperTypes.has(desc.typeName)) {
    if (typeof value === "string") return leaf.string(value);
    if (value instanceof Uint8Array) return leaf.bytes(value);
  }
  return typeof value === "object" ? redactMessage(desc, value as MessageObject, leaf) : value;
}

function redactField(field: DescField, value: unknown, leaf: Leaf): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return redactScalar(field.scalar, value, leaf);
    case "enum":
      return value;
    case "message":
      return redactMessageField(field.message, value, leaf);
    case "list": {
      if (!Array.isArray(value) || field.listKind === "enum") return value;
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const next =
          field.listKind === "scalar"
            ? redactScalar(field.scalar, item, leaf)
            : redactMessageField(field.message, item, leaf);
        if (next !== item) (copy ??= value.slice())[i] = next;
      }
      return copy ?? value;
    }
    case "map": {
      if (typeof value !== "object") return value;
      const record = value as Record<string, unknown>;
      let copy: Record<string, unknown> | undefined;
      for (const key of Object.keys(record)) {
        const item = record[key];
        const nextKey = field.mapKey === ScalarType.STRING ? leaf.string(key) : key;
        const next =
          field.mapKind === "scalar"
            ? redactScalar(field.scalar, item, leaf)
            : field.mapKind === "message"
              ? redactMessageField(field.message, item, leaf)
              : item;
        if (next !== item || nextKey !== key) {
          copy ??= { ...record };
          if (nextKey !== key) delete copy[key];
          copy[nextKey] = next;
        }
      }
      return copy ?? value;
    }
  }
}

/** A copy of a message with the same prototype (protobuf-es keeps proto2 defaults there). */
function shallowCopy(message: MessageObject): MessageObject {
  return Object.assign(Object.create(Object.getPrototypeOf(message) as object | null) as MessageObject, message);
}

function redactMessage(desc: DescMessage, message: MessageObject, leaf: Leaf): MessageObject {
  let copy: MessageObject | undefined;
  const set = (name: string, next: unknown): void => {
    copy ??= shallowCopy(message);
    copy[name] = next;
  };
  for (const member of desc.members) {
    const current = message[member.localName];
    if (current === undefined) continue;
    if (member.kind === "oneof") {
      const selected = current as { case?: string; value?: unknown };
      const field = selected.case === undefined ? undefined : member.fields.find((f) => f.localName === selected.case);
      if (!field) continue;
      const next = redactField(field, selected.value, leaf);
      if (next !== selected.value) set(member.localName, { case: selected.case, value: next });
    } else {
      const next = redactField(member, current, leaf);
      if (next !== current) set(member.localName, next);
    }
  }
  return copy ?? message;
}
