// The receiver's decoders against the official OTLP serializers (the ones the exporters use):
// the same spans, protobuf and JSON, decode to the same ids, parents, kinds, attributes and status.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { decodeTraceRequestJson, decodeTraceRequestProtobuf } from "../../../runtime/telemetry/otlp-trace-request.js";
import { formatSpanTree } from "../../../runtime/telemetry/span-tree.js";

test("protobuf and JSON exports decode to the same spans", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "decoder-test", "pluggableharness.producer.category": "tool" }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer("harness-tool");
  const parent = tracer.startSpan("parent", {
    kind: SpanKind.SERVER,
    attributes: { "rpc.grpc.status_code": 0, text: "a", flag: true, ratio: 0.5, big: 2 ** 40 },
  });
  const child = tracer.startSpan("child", { kind: SpanKind.CLIENT }, trace.setSpan(ROOT_CONTEXT, parent));
  child.setStatus({ code: SpanStatusCode.ERROR });
  child.end();
  parent.end();
  const spans = exporter.getFinishedSpans();

  const fromProtobuf = decodeTraceRequestProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!);
  const fromJson = decodeTraceRequestJson(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!));
  assert.deepEqual(fromProtobuf, fromJson);
  const [decodedChild, decodedParent] = fromProtobuf;
  assert.equal(decodedParent?.traceId, parent.spanContext().traceId);
  assert.equal(decodedParent?.spanId, parent.spanContext().spanId);
  assert.equal(decodedParent?.parentSpanId, "");
  assert.equal(decodedParent?.kind, 2);
  assert.deepEqual(decodedParent?.attributes, {
    "rpc.grpc.status_code": 0,
    text: "a",
    flag: true,
    ratio: 0.5,
    big: 2 ** 40,
  });
  assert.equal(decodedParent?.scope, "harness-tool");
  assert.equal(decodedParent?.resource["service.name"], "decoder-test");
  assert.equal(decodedChild?.parentSpanId, parent.spanContext().spanId);
  assert.equal(decodedChild?.kind, 3);
  assert.equal(decodedChild?.statusCode, 2);
  assert.ok(
    decodedParent!.endTimeUnixNano >= decodedParent!.startTimeUnixNano && decodedParent!.startTimeUnixNano > 0n,
  );

  assert.deepEqual(
    formatSpanTree(fromProtobuf).map((line) => line.replace(/[\d.]+ ms/, "N ms")),
    [
      "parent [server] N ms  rpc.grpc.status_code=0 text=a flag=true ratio=0.5 big=1099511627776",
      "└─ child [client] N ms ERROR",
    ],
  );
});

test("malformed bodies are errors, not empty results", () => {
  assert.throws(() => decodeTraceRequestProtobuf(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])));
  assert.throws(() => decodeTraceRequestJson("{not json"));
});

test("events, links, status message, trace state, scope version and string arrays decode the same from both encodings", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const target = provider.getTracer("other").startSpan("target");
  target.end();
  const withState = { ...target.spanContext(), traceState: createTraceState("vendor=abc") };
  const span = provider
    .getTracer("lib", "1.2.3")
    .startSpan(
      "texts",
      { attributes: { list: ["a", "b"] }, links: [{ context: withState, attributes: { why: "retry" } }] },
      trace.setSpanContext(ROOT_CONTEXT, withState),
    );
  span.addEvent("step", { n: 1, what: "x" });
  span.recordException(new Error("boom"));
  span.setStatus({ code: SpanStatusCode.ERROR, message: "it broke" });
  span.end();
  const spans = exporter.getFinishedSpans();

  const fromProtobuf = decodeTraceRequestProtobuf(ProtobufTraceSerializer.serializeRequest(spans)!);
  const fromJson = decodeTraceRequestJson(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!));
  assert.deepEqual(fromProtobuf, fromJson);
  const decoded = fromProtobuf.find((s) => s.name === "texts");
  assert.equal(decoded?.scope, "lib");
  assert.equal(decoded?.scopeVersion, "1.2.3");
  assert.equal(decoded?.traceState, "vendor=abc");
  assert.equal(decoded?.statusMessage, "it broke");
  assert.equal(decoded?.attributes.list, '["a","b"]');
  assert.deepEqual(decoded?.events[0], { name: "step", attributes: { n: 1, what: "x" } });
  assert.equal(decoded?.events[1]?.name, "exception");
  assert.equal(decoded?.events[1]?.attributes["exception.message"], "boom");
  assert.deepEqual(decoded?.links, [
    { traceId: withState.traceId, spanId: withState.spanId, traceState: "vendor=abc", attributes: { why: "retry" } },
  ]);
});
