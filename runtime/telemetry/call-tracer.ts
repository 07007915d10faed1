/**
 * `ctx.tracer`: the runtime's tracer as a handler sees it. A span the handler starts without an
 * explicit context is a child of the innermost active span when a context manager tracks one
 * (the SDK registers one when export is on), else of the call's Invoke span, so a handler's spans
 * nest under its call with or without a context manager. It is the standard `Tracer` of
 * `@opentelemetry/api`; nothing else of the runtime is exposed.
 */
import {
  context as contextApi,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from "@opentelemetry/api";
import type { CallTrace } from "./call-spans.js";
import { runtimeTracer } from "./span-attributes.js";

/** The context a span started by the handler hangs off. */
function parentOf(call: CallTrace, explicit: Context | undefined): Context {
  if (explicit !== undefined) return explicit;
  const active = contextApi.active();
  return trace.getSpan(active) !== undefined ? active : call.context;
}

/** A Tracer whose spans default to the call's span as their parent. */
export function callTracer(call: CallTrace, tracer: () => Tracer = runtimeTracer): Tracer {
  return {
    startSpan(name: string, options?: SpanOptions, context?: Context): Span {
      return tracer().startSpan(name, options, parentOf(call, context));
    },
    startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
      // The API's overloads: (name, fn), (name, options, fn), (name, options, context, fn).
      const fn = rest[rest.length - 1] as F;
      const options = rest.length >= 2 ? (rest[0] as SpanOptions | undefined) : undefined;
      const explicit = rest.length >= 3 ? (rest[1] as Context | undefined) : undefined;
      const parent = parentOf(call, explicit);
      const span = tracer().startSpan(name, options, parent);
      return contextApi.with(trace.setSpan(parent, span), fn as (span: Span) => ReturnType<F>, undefined, span);
    },
  } as Tracer;
}
