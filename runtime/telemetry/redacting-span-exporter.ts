/**
 * The span exit: every span the provider exports passes the service's secret redaction on its way
 * to the collector, like every other byte the provider sends (docs/runtime.md#exits). The runtime's
 * own spans carry no text from calls, but a handler's do: `ctx.span`, `ctx.tracer`, the active
 * span and any tracer of the global provider let it set names, attributes, events, exceptions,
 * status messages, links and trace state. So the exporter, not the span, redacts: it sees every
 * span of the process, whoever started it, after the last change and with every secret Configure
 * has accepted by then, and the work runs in the batch processor's export, off the call's path.
 *
 * Redacted: the name, attribute keys and values (strings and string arrays), event names and
 * attributes (a recorded exception's type, message and stack are event attributes), the status
 * message, link attributes and trace state, the span's trace state, and the instrumentation
 * scope's name, version and schema URL. Not redacted: the resource, built before any Configure
 * from the provider's declaration and the operator's OTEL_* variables (as Describe is; a handler
 * cannot change it), and ids, times, kinds and codes. A span with nothing to redact is exported
 * as it is; otherwise a copy is, the SDK's span untouched.
 */
import type { Attributes, AttributeValue, Link, SpanContext, SpanStatus, TraceState } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter, TimedEvent } from "@opentelemetry/sdk-trace-node";

/** The service's redaction of one text (ToolService.redactText): the identity until Configure brings secrets. */
export type RedactText = (text: string) => string;

/** An exporter that redacts what it exports once it knows how. */
export interface RedactingSpanExporter extends SpanExporter {
  /** From now on, every exported span passes `text` (serve() hands over the service's redaction). */
  redactWith(text: RedactText): void;
}

/** Wraps `inner`; until redactWith is called spans pass as they are (no handler has run yet). */
export function redactingSpanExporter(inner: SpanExporter): RedactingSpanExporter {
  let text: RedactText | undefined;
  return {
    export(spans, done) {
      if (text === undefined) return inner.export(spans, done);
      let redacted: ReadableSpan[];
      try {
        redacted = spans.map((span) => redactSpan(span, text as RedactText));
      } catch (error) {
        // Never export what could not be redacted. ExportResultCode.FAILED (core is not imported: the SDK is optional).
        return done({ code: 1, error: error instanceof Error ? error : new Error(String(error)) });
      }
      inner.export(redacted, done);
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    redactWith(next) {
      text = next;
    },
  };
}

function redactValue(value: AttributeValue | undefined, text: RedactText): AttributeValue | undefined {
  if (typeof value === "string") return text(value);
  if (!Array.isArray(value)) return value;
  let copy: unknown[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== "string") continue;
    const next = text(item);
    if (next !== item) (copy ??= value.slice())[i] = next;
  }
  return (copy as AttributeValue | undefined) ?? value;
}

/** Keys and values; unchanged attributes are returned as they are. */
export function redactAttributes<T extends Attributes | undefined>(attributes: T, text: RedactText): T {
  if (attributes === undefined) return attributes;
  let copy: Attributes | undefined;
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    const nextKey = text(key);
    const next = redactValue(value, text);
    if (next !== value || nextKey !== key) {
      copy ??= { ...attributes };
      if (nextKey !== key) delete copy[key];
      copy[nextKey] = next;
    }
  }
  return (copy as T | undefined) ?? attributes;
}

/** Maps a list, sharing it when no item changed. */
function mapShared<T>(items: readonly T[], redact: (item: T) => T): T[] {
  let copy: T[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as T;
    const next = redact(item);
    if (next !== item) (copy ??= items.slice())[i] = next;
  }
  return copy ?? (items as T[]);
}

/** A trace state whose serialization (all the exporter reads) is redacted. */
function redactTraceState(state: TraceState | undefined, text: RedactText): TraceState | undefined {
  if (state === undefined) return state;
  const serialized = state.serialize();
  const next = text(serialized);
  if (next === serialized) return state;
  const redacted: TraceState = {
    serialize: () => next,
    get: (key) => {
      const value = state.get(key);
      return value === undefined ? value : text(value);
    },
    set: () => redacted,
    unset: () => redacted,
  };
  return redacted;
}

function redactContext(context: SpanContext, text: RedactText): SpanContext {
  const traceState = redactTraceState(context.traceState, text);
  // Changed, so defined.
  return traceState === context.traceState ? context : { ...context, traceState: traceState as TraceState };
}

function redactEvent(event: TimedEvent, text: RedactText): TimedEvent {
  const name = text(event.name);
  const attributes = redactAttributes(event.attributes, text);
  if (name === event.name && attributes === event.attributes) return event;
  return { ...event, name, ...(attributes === undefined ? {} : { attributes }) };
}

function redactLink(link: Link, text: RedactText): Link {
  const context = redactContext(link.context, text);
  const attributes = redactAttributes(link.attributes, text);
  if (context === link.context && attributes === link.attributes) return link;
  return { ...link, context, ...(attributes === undefined ? {} : { attributes }) };
}

function redactStatus(status: SpanStatus, text: RedactText): SpanStatus {
  if (status.message === undefined) return status;
  const message = text(status.message);
  return message === status.message ? status : { ...status, message };
}

function redactScope(
  scope: ReadableSpan["instrumentationScope"],
  text: RedactText,
): ReadableSpan["instrumentationScope"] {
  const name = text(scope.name);
  const version = scope.version === undefined ? undefined : text(scope.version);
  const schemaUrl = scope.schemaUrl === undefined ? undefined : text(scope.schemaUrl);
  if (name === scope.name && version === scope.version && schemaUrl === scope.schemaUrl) return scope;
  return {
    ...scope,
    name,
    ...(version === undefined ? {} : { version }),
    ...(schemaUrl === undefined ? {} : { schemaUrl }),
  };
}

/** One span as it may leave the process: the span itself when nothing in it is a secret. */
export function redactSpan(span: ReadableSpan, text: RedactText): ReadableSpan {
  const name = text(span.name);
  const attributes = redactAttributes(span.attributes, text);
  const events = mapShared(span.events, (event) => redactEvent(event, text));
  const links = mapShared(span.links, (link) => redactLink(link, text));
  const status = redactStatus(span.status, text);
  const original = span.spanContext();
  const context = redactContext(original, text);
  const instrumentationScope = redactScope(span.instrumentationScope, text);
  if (
    name === span.name &&
    attributes === span.attributes &&
    events === span.events &&
    links === span.links &&
    status === span.status &&
    context === original &&
    instrumentationScope === span.instrumentationScope
  ) {
    return span;
  }
  return {
    name,
    kind: span.kind,
    spanContext: () => context,
    // The exporter reads only the parent's span id and remote flag from it.
    ...(span.parentSpanContext === undefined ? {} : { parentSpanContext: span.parentSpanContext }),
    startTime: span.startTime,
    endTime: span.endTime,
    status,
    attributes,
    links,
    events,
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
