/**
 * Decoding of an OTLP ExportTraceServiceRequest, in the protobuf encoding (http/protobuf, the
 * default) and the JSON one (http/json), into plain spans: what the test host and `harness-tool
 * invoke --trace` read from the provider. The messages are generated from
 * vendor-proto/opentelemetry (opentelemetry-proto v1.7.0); the test host and the CLI import this,
 * a provider never does. Every text a handler can set is kept (events, links, status message, trace
 * state, scope version), so tests can see what reached the collector.
 */
import { fromBinary, fromJson, type JsonValue } from "@bufbuild/protobuf";
import {
  ExportTraceServiceRequestSchema,
  type ExportTraceServiceRequest,
} from "../generated/opentelemetry/proto/collector/trace/v1/trace_service_pb.js";
import type { AnyValue, KeyValue } from "../generated/opentelemetry/proto/common/v1/common_pb.js";

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

/** A value as JSON can hold it: a 64-bit integer beyond 2^53 as its decimal text. */
const jsonable = (value: ReceivedValue): string | number | boolean =>
  typeof value === "bigint" ? String(value) : value;

function receivedValue(value: AnyValue | undefined): ReceivedValue {
  switch (value?.value.case) {
    case "stringValue":
    case "boolValue":
    case "doubleValue":
      return value.value.value;
    case "intValue": {
      const n = value.value.value;
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    case "bytesValue":
      return hex(value.value.value);
    case "arrayValue":
      return JSON.stringify(value.value.value.values.map((v) => jsonable(receivedValue(v))));
    case "kvlistValue":
      return JSON.stringify(
        Object.fromEntries(value.value.value.values.map((kv) => [kv.key, jsonable(receivedValue(kv.value))])),
      );
    default:
      return "";
  }
}

function receivedAttributes(list: readonly KeyValue[]): { [key: string]: ReceivedValue } {
  return Object.fromEntries(list.map((kv) => [kv.key, receivedValue(kv.value)]));
}

function receivedSpans(request: ExportTraceServiceRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans) {
    const resource = receivedAttributes(rs.resource?.attributes ?? []);
    for (const ss of rs.scopeSpans) {
      for (const span of ss.spans) {
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: span.kind,
          startTimeUnixNano: span.startTimeUnixNano,
          endTimeUnixNano: span.endTimeUnixNano,
          attributes: receivedAttributes(span.attributes),
          statusCode: span.status?.code ?? 0,
          statusMessage: span.status?.message ?? "",
          traceState: span.traceState,
          events: span.events.map((e) => ({ name: e.name, attributes: receivedAttributes(e.attributes) })),
          links: span.links.map((l) => ({
            traceId: hex(l.traceId),
            spanId: hex(l.spanId),
            traceState: l.traceState,
            attributes: receivedAttributes(l.attributes),
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

/** Decodes the protobuf encoding. Throws on malformed input. */
export function decodeTraceRequestProtobuf(bytes: Uint8Array): ReceivedSpan[] {
  return receivedSpans(fromBinary(ExportTraceServiceRequestSchema, bytes));
}

/** OTLP/JSON's one departure from the protobuf JSON mapping: trace and span ids are hex, not base64. */
const hexIdFields = new Set(["traceId", "spanId", "parentSpanId"]);

function idsAsBase64(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(idsAsBase64);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      hexIdFields.has(key) && typeof v === "string" ? Buffer.from(v, "hex").toString("base64") : idsAsBase64(v),
    ]),
  );
}

/** Decodes the JSON encoding (ids in hex, as OTLP/JSON has them). Throws on malformed input. */
export function decodeTraceRequestJson(text: string): ReceivedSpan[] {
  const json = idsAsBase64(JSON.parse(text) as JsonValue);
  return receivedSpans(fromJson(ExportTraceServiceRequestSchema, json, { ignoreUnknownFields: true }));
}
