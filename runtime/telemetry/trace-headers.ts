/**
 * W3C Trace Context (`traceparent`, `tracestate`) and W3C Baggage as they cross the plugin's gRPC
 * boundary: read from an incoming call's metadata, turned into an `@opentelemetry/api` Context,
 * and written back out on the kernel callbacks. The kernel's otelgrpc handlers send and read the
 * same headers. Written against the API alone, so context passes through a provider even when no
 * SDK is loaded (the API's no-op tracer then hands out non-recording spans that carry the
 * kernel's span context).
 */
import { randomBytes } from "node:crypto";
import {
  createTraceState,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type Baggage,
  type BaggageEntry,
  type Context,
  type SpanContext,
} from "@opentelemetry/api";

/** The propagation headers of one call, as plain strings; the transport copies them verbatim. */
export type TraceHeaders = {
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly baggage?: string;
};

/** The metadata names read and written, lower case as gRPC metadata keys are. */
export const traceHeaderNames = ["traceparent", "tracestate", "baggage"] as const;

/** gRPC metadata as grpc-js' Metadata reads (structural, so the telemetry room needs no grpc-js). */
export interface MetadataReader {
  get(key: string): readonly (string | Buffer)[];
}

/** The propagation headers present in `metadata`; undefined when there are none. */
export function traceHeadersFromMetadata(metadata: MetadataReader): TraceHeaders | undefined {
  let headers: { traceparent?: string; tracestate?: string; baggage?: string } | undefined;
  for (const name of traceHeaderNames) {
    const values = metadata.get(name);
    if (values.length === 0) continue;
    // Several tracestate/baggage entries are one list (W3C: combined with commas).
    const value = values.map(String).join(",");
    (headers ??= {})[name] = value;
  }
  return headers;
}

// W3C Trace Context level 1: version-traceid-parentid-flags, lower-case hex. Version ff is invalid;
// a higher version may carry more fields after the flags, which are ignored.
const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const invalidTraceId = "00000000000000000000000000000000";
const invalidSpanId = "0000000000000000";

/** The remote span context a `traceparent` names, or undefined when it is malformed. */
export function parseTraceparent(traceparent: string, tracestate?: string): SpanContext | undefined {
  const match = traceparentPattern.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === invalidTraceId || spanId === invalidSpanId) return undefined;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
  // The API's TraceState keeps the list as it arrived (at most 32 valid members).
  const state = tracestate === undefined ? undefined : createTraceState(tracestate);
  return state && state.serialize() !== "" ? { ...context, traceState: state } : context;
}

/** `traceparent` for a span context (version 00). */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-0${(context.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}

/** W3C Baggage: `key=value;properties` members, percent-encoded values. */
function parseBaggage(header: string): Baggage | undefined {
  const entries: Record<string, BaggageEntry> = {};
  let count = 0;
  for (const member of header.split(",")) {
    // Member properties (after ';') are dropped: nothing in the kernel reads them.
    const pair = member.split(";", 1)[0] ?? "";
    const equals = pair.indexOf("=");
    if (equals <= 0) continue;
    const key = pair.slice(0, equals).trim();
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      continue;
    }
    if (key === "") continue;
    entries[key] = { value };
    // W3C Baggage: at most 180 members.
    if (++count >= 180) break;
  }
  return count === 0 ? undefined : propagation.createBaggage(entries);
}

/**
 * The context a call's span starts in: the kernel's span as a remote parent, and its baggage.
 * ROOT_CONTEXT when the headers carry no valid traceparent.
 */
export function contextFromTraceHeaders(headers: TraceHeaders | undefined): Context {
  if (headers === undefined) return ROOT_CONTEXT;
  let context = ROOT_CONTEXT;
  const parent =
    headers.traceparent === undefined ? undefined : parseTraceparent(headers.traceparent, headers.tracestate);
  if (parent) context = trace.setSpanContext(context, parent);
  const baggage = headers.baggage === undefined ? undefined : parseBaggage(headers.baggage);
  if (baggage) context = propagation.setBaggage(context, baggage);
  return context;
}

/** The headers that continue `context` on an outgoing call; undefined when it has no valid span. */
export function traceHeadersFromContext(context: Context): TraceHeaders | undefined {
  const span = trace.getSpanContext(context);
  if (!span || span.traceId === invalidTraceId || span.spanId === invalidSpanId) return undefined;
  const state = span.traceState?.serialize();
  const baggage = propagation.getBaggage(context);
  const members = baggage
    ?.getAllEntries()
    .map(([key, entry]) => `${key}=${encodeURIComponent(entry.value)}`)
    .join(",");
  return {
    traceparent: formatTraceparent(span),
    ...(state ? { tracestate: state } : {}),
    ...(members ? { baggage: members } : {}),
  };
}

/** A random trace id (16 bytes, hex) for a host that starts traces, as the kernel does per turn. */
export function randomTraceId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * The `traceparent` a host sends on one call: its trace, a fresh span id standing for its CLIENT
 * span of the call, sampled (as the kernel's otelgrpc handler sends it).
 */
export function hostTraceparent(traceId: string): string {
  return formatTraceparent({ traceId, spanId: randomBytes(8).toString("hex"), traceFlags: TraceFlags.SAMPLED });
}
