/**
 * Decoding of an OTLP ExportTraceServiceRequest (opentelemetry/proto/collector/trace/v1), in the
 * protobuf encoding (http/protobuf, the default) and the JSON one (http/json), into plain spans:
 * what the test host and `harness-tool invoke --trace` read from the provider. The fields a span
 * tree needs are read, and every text a handler can set (events, links, status message, trace
 * state, scope version), so tests can see what reached the collector; the rest is skipped. Field
 * numbers from opentelemetry-proto v1.
 */
import { BinaryReader, type WireType } from "@bufbuild/protobuf/wire";

/** An attribute value as OTLP carries it (arrays flattened to JSON text of their values, maps to JSON text). */
export type ReceivedValue = string | number | boolean | bigint;

/** A span event (a recorded exception is one named `exception`). */
export interface ReceivedEvent {
  readonly name: string;
  readonly attributes: { readonly [key: string]: ReceivedValue };
}

/** A span link. */
export interface ReceivedLink {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceState: string;
  readonly attributes: { readonly [key: string]: ReceivedValue };
}

/** One exported span, with its resource. */
export interface ReceivedSpan {
  /** 32 lower-case hex digits. */
  readonly traceId: string;
  /** 16 lower-case hex digits. */
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: { readonly [key: string]: ReceivedValue };
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** The status description ("" when none). */
  readonly statusMessage: string;
  /** W3C tracestate ("" when none). */
  readonly traceState: string;
  readonly events: readonly ReceivedEvent[];
  readonly links: readonly ReceivedLink[];
  /** The instrumentation scope's name and version. */
  readonly scope: string;
  readonly scopeVersion: string;
  readonly resource: { readonly [key: string]: ReceivedValue };
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** Reads a length-delimited submessage's fields with `field`, skipping unknown ones. */
function readMessage(reader: BinaryReader, end: number, field: (no: number, type: WireType) => boolean): void {
  while (reader.pos < end) {
    const [no, type] = reader.tag();
    if (!field(no, type)) reader.skip(type, no);
  }
}

function sub(reader: BinaryReader): number {
  const length = reader.uint32();
  return reader.pos + length;
}

/** An ArrayValue's values, as JSON text. */
function readArrayValue(reader: BinaryReader, end: number): string {
  const values: unknown[] = [];
  readMessage(reader, end, (no) => {
    if (no !== 1) return false;
    const value = readAnyValue(reader, sub(reader));
    values.push(typeof value === "bigint" ? String(value) : value);
    return true;
  });
  return JSON.stringify(values);
}

function readAnyValue(reader: BinaryReader, end: number): ReceivedValue {
  let value: ReceivedValue = "";
  readMessage(reader, end, (no) => {
    if (no === 1) value = reader.string();
    else if (no === 5) value = readArrayValue(reader, sub(reader));
    else if (no === 2) value = reader.bool();
    else if (no === 3) {
      const n = BigInt(reader.int64());
      value = n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    } else if (no === 4) value = reader.double();
    else if (no === 7) value = hex(reader.bytes());
    else return false;
    return true;
  });
  return value;
}

function readKeyValue(reader: BinaryReader, end: number, into: { [key: string]: ReceivedValue }): void {
  let key = "";
  let value: ReceivedValue = "";
  readMessage(reader, end, (no) => {
    if (no === 1) key = reader.string();
    else if (no === 2) value = readAnyValue(reader, sub(reader));
    else return false;
    return true;
  });
  into[key] = value;
}

function readAttributesOf(reader: BinaryReader, end: number, attributeField: number, into: { [key: string]: ReceivedValue }): void {
  readMessage(reader, end, (no) => {
    if (no !== attributeField) return false;
    readKeyValue(reader, sub(reader), into);
    return true;
  });
}

function readEvent(reader: BinaryReader, end: number): ReceivedEvent {
  let name = "";
  const attributes: { [key: string]: ReceivedValue } = {};
  readMessage(reader, end, (no) => {
    if (no === 2) name = reader.string();
    else if (no === 3) readKeyValue(reader, sub(reader), attributes);
    else return false;
    return true;
  });
  return { name, attributes };
}

function readLink(reader: BinaryReader, end: number): ReceivedLink {
  const link = { traceId: "", spanId: "", traceState: "" };
  const attributes: { [key: string]: ReceivedValue } = {};
  readMessage(reader, end, (no) => {
    if (no === 1) link.traceId = hex(reader.bytes());
    else if (no === 2) link.spanId = hex(reader.bytes());
    else if (no === 3) link.traceState = reader.string();
    else if (no === 4) readKeyValue(reader, sub(reader), attributes);
    else return false;
    return true;
  });
  return { ...link, attributes };
}

/** The instrumentation scope a ScopeSpans names. */
interface Scope {
  readonly name: string;
  readonly version: string;
}

function readSpan(reader: BinaryReader, end: number, scope: Scope, resource: ReceivedSpan["resource"]): ReceivedSpan {
  const span = {
    traceId: "",
    spanId: "",
    parentSpanId: "",
    name: "",
    kind: 0,
    startTimeUnixNano: 0n,
    endTimeUnixNano: 0n,
    statusCode: 0,
    statusMessage: "",
    traceState: "",
  };
  const attributes: { [key: string]: ReceivedValue } = {};
  const events: ReceivedEvent[] = [];
  const links: ReceivedLink[] = [];
  readMessage(reader, end, (no) => {
    switch (no) {
      case 1:
        span.traceId = hex(reader.bytes());
        return true;
      case 2:
        span.spanId = hex(reader.bytes());
        return true;
      case 3:
        span.traceState = reader.string();
        return true;
      case 4:
        span.parentSpanId = hex(reader.bytes());
        return true;
      case 5:
        span.name = reader.string();
        return true;
      case 6:
        span.kind = reader.int32();
        return true;
      case 7:
        span.startTimeUnixNano = BigInt(reader.fixed64());
        return true;
      case 8:
        span.endTimeUnixNano = BigInt(reader.fixed64());
        return true;
      case 9:
        readKeyValue(reader, sub(reader), attributes);
        return true;
      case 11:
        events.push(readEvent(reader, sub(reader)));
        return true;
      case 13:
        links.push(readLink(reader, sub(reader)));
        return true;
      case 15:
        readMessage(reader, sub(reader), (statusField) => {
          if (statusField === 2) span.statusMessage = reader.string();
          else if (statusField === 3) span.statusCode = reader.int32();
          else return false;
          return true;
        });
        return true;
      default:
        return false;
    }
  });
  return { ...span, attributes, events, links, scope: scope.name, scopeVersion: scope.version, resource };
}

/** Decodes the protobuf encoding. Throws on malformed input. */
export function decodeTraceRequestProtobuf(bytes: Uint8Array): ReceivedSpan[] {
  const reader = new BinaryReader(bytes);
  const spans: ReceivedSpan[] = [];
  readMessage(reader, bytes.length, (no) => {
    if (no !== 1) return false;
    // ResourceSpans: the resource first (proto order), then its scope spans.
    const resource: { [key: string]: ReceivedValue } = {};
    readMessage(reader, sub(reader), (rsField) => {
      if (rsField === 1) readAttributesOf(reader, sub(reader), 1, resource);
      else if (rsField === 2) {
        const scope = { name: "", version: "" };
        readMessage(reader, sub(reader), (ssField) => {
          if (ssField === 1) {
            readMessage(reader, sub(reader), (scopeField) => {
              if (scopeField === 1) scope.name = reader.string();
              else if (scopeField === 2) scope.version = reader.string();
              else return false;
              return true;
            });
          } else if (ssField === 2) spans.push(readSpan(reader, sub(reader), scope, resource));
          else return false;
          return true;
        });
      } else return false;
      return true;
    });
    return true;
  });
  return spans;
}

type JsonAnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: JsonAnyValue[] };
} & Record<string, unknown>;
type JsonKeyValue = { key: string; value?: JsonAnyValue };

function jsonValue(value: JsonAnyValue | undefined): ReceivedValue {
  if (!value) return "";
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return JSON.stringify((value.arrayValue.values ?? []).map(jsonValue));
  return JSON.stringify(value);
}

function jsonAttributes(list: readonly JsonKeyValue[] | undefined): { [key: string]: ReceivedValue } {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));
}

/** Decodes the JSON encoding (ids in hex, as OTLP/JSON has them). Throws on malformed input. */
export function decodeTraceRequestJson(text: string): ReceivedSpan[] {
  const request = JSON.parse(text) as {
    resourceSpans?: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        scope?: { name?: string; version?: string };
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          traceState?: string;
          name: string;
          kind?: number;
          startTimeUnixNano?: string | number;
          endTimeUnixNano?: string | number;
          attributes?: JsonKeyValue[];
          events?: { name?: string; attributes?: JsonKeyValue[] }[];
          links?: { traceId?: string; spanId?: string; traceState?: string; attributes?: JsonKeyValue[] }[];
          status?: { code?: number; message?: string };
        }[];
      }[];
    }[];
  };
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          traceId: s.traceId.toLowerCase(),
          spanId: s.spanId.toLowerCase(),
          parentSpanId: (s.parentSpanId ?? "").toLowerCase(),
          name: s.name,
          kind: s.kind ?? 0,
          startTimeUnixNano: BigInt(s.startTimeUnixNano ?? 0),
          endTimeUnixNano: BigInt(s.endTimeUnixNano ?? 0),
          attributes: jsonAttributes(s.attributes),
          statusCode: s.status?.code ?? 0,
          statusMessage: s.status?.message ?? "",
          traceState: s.traceState ?? "",
          events: (s.events ?? []).map((e) => ({ name: e.name ?? "", attributes: jsonAttributes(e.attributes) })),
          links: (s.links ?? []).map((l) => ({
            traceId: (l.traceId ?? "").toLowerCase(),
            spanId: (l.spanId ?? "").toLowerCase(),
            traceState: l.traceState ?? "",
            attributes: jsonAttributes(l.attributes),
          })),
          scope: ss.scope?.name ?? "",
          scopeVersion: ss.scope?.version ?? "",
          resource,
        });
      }
    }
  }
  return spans;
}
