// One SERVER span per DispatchHook, continuing the kernel's trace: the point and mode under the
// kernel's keys, the outcome, the veto's answer, the HookError category on failure; never the payload.
import assert from "node:assert/strict";
import { after, beforeEach, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { DispatchHookRequestSchema, HookMode } from "../../../../generated/pluggableharness/hook/v1/hook_pb.js";
import { defineProvider } from "../../../../runtime/provider/define-provider.js";
import { createToolService } from "../../../../runtime/service/calls/tool-service.js";
import { createHookService } from "../../../../runtime/service/hooks/hook-service.js";
import type { HookServiceCore } from "../../../../runtime/service/hooks/hook-service-core.js";

const exporter = new InMemorySpanExporter();
const tracing = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
tracing.register();
after(() => tracing.shutdown());
beforeEach(() => exporter.reset());

const kernelTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const traceparent = `00-${kernelTraceId}-00f067aa0ba902b7-01`;

const provider = defineProvider(
  {
    name: "spans",
    version: "1",
    source: "github.com/acme/s",
    tools: {},
    hooks: {
      "plan-ready": { veto: async (payload) => (payload.plan?.turnId === "deny-me" ? "deny" : "allow") },
      "post-apply": {
        observe: async () => {
          throw new Error("the audit sink is gone");
        },
      },
    },
  },
  {},
);
const hooks = createHookService(createToolService(provider, { stderr: () => {} }).serviceScope) as HookServiceCore;

function request(turnId: string, mode = HookMode.VETO): Uint8Array {
  return toBinary(
    DispatchHookRequestSchema,
    create(DispatchHookRequestSchema, {
      payload: { payload: { case: "planReady", value: { plan: { turnId } } } },
      mode,
    }),
  );
}

describe("DispatchHook spans", () => {
  it("a veto: one SERVER span, child of the kernel's, with point, mode, outcome and answer, and no payload", async () => {
    await hooks.dispatchHook(request("deny-me"), { cancelled: new AbortController().signal, trace: { traceparent } });
    const spans = exporter.getFinishedSpans();
    assert.equal(spans.length, 1);
    const span = spans[0]!;
    assert.equal(span.name, "pluggableharness.hook.v1.HookSubscriberService/DispatchHook");
    assert.equal(span.kind, SpanKind.SERVER);
    assert.equal(span.spanContext().traceId, kernelTraceId);
    assert.deepEqual(span.attributes, {
      "rpc.system": "grpc",
      "rpc.service": "pluggableharness.hook.v1.HookSubscriberService",
      "rpc.method": "DispatchHook",
      "pluggableharness.hook.point": "plan-ready",
      "pluggableharness.subscriber.mode": "veto",
      "rpc.grpc.status_code": 0,
      "pluggableharness.outcome": "ok",
      "pluggableharness.hook.answer": "deny",
    });
    assert.doesNotMatch(JSON.stringify(span.attributes), /deny-me/);
  });

  it("a refused mode and a thrown observer: outcome error with the HookError category", async () => {
    await hooks.dispatchHook(request("t", HookMode.TRANSFORM), { cancelled: new AbortController().signal });
    const post = toBinary(
      DispatchHookRequestSchema,
      create(DispatchHookRequestSchema, {
        payload: { payload: { case: "postApply", value: {} } },
        mode: HookMode.OBSERVE,
      }),
    );
    await hooks.dispatchHook(post, { cancelled: new AbortController().signal });
    const [refused, thrown] = exporter.getFinishedSpans();
    assert.equal(refused?.attributes["error.type"], "invalid_response");
    assert.equal(refused?.attributes["rpc.grpc.status_code"], 3);
    assert.equal(refused?.attributes["pluggableharness.subscriber.mode"], "transform");
    assert.equal(thrown?.attributes["error.type"], "unknown");
    assert.equal(thrown?.attributes["pluggableharness.outcome"], "error");
    assert.equal(thrown?.status.code, SpanStatusCode.ERROR);
    assert.doesNotMatch(JSON.stringify(thrown?.attributes), /audit sink/);
  });
});
