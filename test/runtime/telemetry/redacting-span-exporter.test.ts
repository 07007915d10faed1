// The span exit in-process (the wire test is span-exit.test.ts): spans with nothing to redact are
// exported as they are, redacted ones as copies with the SDK's span untouched, nothing is redacted
// before serve() hands over the service's redaction, and a redaction that throws exports nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import { redactingSpanExporter, redactSpan } from "../../../runtime/telemetry/redacting-span-exporter.js";

const secret = "s3cret-value";
const text = (value: string) => value.replaceAll(secret, "[REDACTED]");

function finished(build: (provider: BasicTracerProvider) => void): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  build(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  return exporter.getFinishedSpans();
}

/** An exporter that keeps what it was given. */
function collecting(): SpanExporter & { batches: ReadableSpan[][] } {
  const batches: ReadableSpan[][] = [];
  return {
    batches,
    export: (spans, done) => {
      batches.push(spans);
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
}

test("a span with nothing to redact is exported as it is", () => {
  const [span] = finished((p) => {
    const s = p.getTracer("t").startSpan("plain", { attributes: { a: "x", n: 1, list: ["y"] } });
    s.addEvent("e", { b: "z" });
    s.end();
  });
  assert.equal(redactSpan(span!, text), span);
});

test("a redacted span is a copy; the SDK's span keeps what the handler set", () => {
  const [span] = finished((p) => {
    const s = p.getTracer("t").startSpan(`name ${secret}`, { attributes: { a: secret, n: 1, list: ["ok", secret] } });
    s.end();
  });
  const redacted = redactSpan(span!, text);
  assert.notEqual(redacted, span);
  assert.equal(redacted.name, "name [REDACTED]");
  assert.deepEqual(redacted.attributes, { a: "[REDACTED]", n: 1, list: ["ok", "[REDACTED]"] });
  assert.equal(redacted.spanContext().spanId, span!.spanContext().spanId);
  assert.equal(redacted.resource, span!.resource);
  assert.equal(span!.name, `name ${secret}`);
  assert.deepEqual(span!.attributes.list, ["ok", secret]);
});

test("spans pass as they are until redactWith, and are redacted after", () => {
  const spans = finished((p) => p.getTracer("t").startSpan(secret).end());
  const inner = collecting();
  const exporter = redactingSpanExporter(inner);
  exporter.export(spans, () => {});
  exporter.redactWith(text);
  exporter.export(spans, () => {});
  assert.deepEqual(
    inner.batches.map((batch) => batch.map((s) => s.name)),
    [[secret], ["[REDACTED]"]],
  );
});

test("a redaction that throws exports nothing and reports the batch failed", () => {
  const spans = finished((p) => p.getTracer("t").startSpan("x").end());
  const inner = collecting();
  const exporter = redactingSpanExporter(inner);
  exporter.redactWith(() => {
    throw new Error("redactor broke");
  });
  let result: { code: number; error?: Error } | undefined;
  exporter.export(spans, (r) => {
    result = r;
  });
  assert.equal(inner.batches.length, 0);
  assert.equal(result?.code, 1);
  assert.match(String(result?.error), /redactor broke/);
});
