// The runtime's spans, read through the SDK's in-memory exporter: one SERVER span per ToolService
// call continuing the kernel's trace, RPC semantic-convention and tool attributes, outcomes, the
// handler's own spans, child processes and kernel callbacks; never arguments, outputs or secrets.
import assert from "node:assert/strict";
import { after, beforeEach, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-node";
import { EventKind } from "../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import {
  ConfigureRequestSchema,
  PreviewRequestSchema,
  RenderRequestSchema,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineProvider, defineTool, ToolError } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import type { KernelClient } from "../../../runtime/service/kernel/kernel-client.js";
import type { TraceHeaders } from "../../../runtime/telemetry/trace-headers.js";
import { echo, exec, providerWith, stream, textSchema } from "../service/support/sample-tools.js";
import { fakeKernel } from "../service/support/fake-kernel.js";
import { invokeRequest, onlyTerminal, recordingSink, sleep } from "../service/support/recording-sink.js";

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
after(() => provider.shutdown());
beforeEach(() => exporter.reset());

// The kernel's CLIENT span, as its otelgrpc handler sends it.
const kernelTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const kernelSpanId = "00f067aa0ba902b7";
const kernelHeaders: TraceHeaders = {
  traceparent: `00-${kernelTraceId}-${kernelSpanId}-01`,
  tracestate: "kernel=1",
  baggage: "turn=t%201",
};

function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

function only(name: string): ReadableSpan {
  const found = spansNamed(name);
  assert.equal(
    found.length,
    1,
    `spans named ${name}: ${exporter
      .getFinishedSpans()
      .map((s) => s.name)
      .join(", ")}`,
  );
  return found[0]!;
}

function parentId(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Every attribute value of every finished span, as text. */
function everyAttributeValue(): string {
  return exporter
    .getFinishedSpans()
    .flatMap((span) => [
      span.name,
      ...Object.values(span.attributes).map(String),
      span.status.message ?? "",
      ...span.events.map((e) => e.name),
    ])
    .join("\n");
}

/** A KernelClient that also records the propagation headers of each callback. */
function tracingKernel(): KernelClient & {
  headers: { method: string; trace: TraceHeaders | undefined }[];
  base: ReturnType<typeof fakeKernel>;
} {
  const base = fakeKernel();
  const headers: { method: string; trace: TraceHeaders | undefined }[] = [];
  return {
    base,
    headers,
    log: (request, t) => {
      headers.push({ method: "Log", trace: t });
      return base.log(request);
    },
    emit: (request, t) => {
      headers.push({ method: "Emit", trace: t });
      return base.emit(request);
    },
    runSession: (request, signal, t) => {
      headers.push({ method: "RunSession", trace: t });
      return base.runSession(request, signal);
    },
    countTokens: (request, signal, t) => {
      headers.push({ method: "CountTokens", trace: t });
      return base.countTokens(request, signal);
    },
  };
}

describe("the Invoke span", () => {
  it("is a SERVER child of the kernel's span, named and attributed after the RPC conventions and the tool", async () => {
    const service = createToolService(
      providerWith(echo, async (input) => ({ text: `out:${input.text}` })),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "argument-text" }, { id: "call-77" }), rec.sink, kernelHeaders);
    assert.equal(onlyTerminal(rec).case, "result");
    const span = only("pluggableharness.tool.v1.ToolService/Invoke");
    assert.equal(span.kind, SpanKind.SERVER);
    assert.equal(span.spanContext().traceId, kernelTraceId);
    assert.equal(parentId(span), kernelSpanId);
    assert.equal(span.parentSpanContext?.isRemote, true);
    assert.deepEqual(span.attributes, {
      "rpc.system": "grpc",
      "rpc.service": "pluggableharness.tool.v1.ToolService",
      "rpc.method": "Invoke",
      "rpc.grpc.status_code": 0,
      "pluggableharness.tool.name": "echo",
      "pluggableharness.tool.kind": "data_source",
      "pluggableharness.tool.risk": "read_only",
      "pluggableharness.tool.call_id": "call-77",
      "pluggableharness.outcome": "ok",
    });
    assert.equal(span.status.code, SpanStatusCode.UNSET);
    assert.doesNotMatch(everyAttributeValue(), /argument-text|out:/);
  });

  it("starts a new trace when the call carries no (or a malformed) traceparent", async () => {
    const service = createToolService(
      providerWith(echo, async (input) => input),
      { stderr: () => {} },
    );
    await service.invoke(invokeRequest("echo", { text: "a" }), recordingSink().sink);
    await service.invoke(invokeRequest("echo", { text: "a" }), recordingSink().sink, {
      traceparent: `00-${"0".repeat(32)}-${kernelSpanId}-01`,
    });
    const spans = spansNamed("pluggableharness.tool.v1.ToolService/Invoke");
    assert.equal(spans.length, 2);
    for (const span of spans) {
      assert.equal(span.parentSpanContext, undefined);
      assert.notEqual(span.spanContext().traceId, kernelTraceId);
    }
  });

  it("records a ToolError's category as the outcome, never its message", async () => {
    const service = createToolService(
      providerWith(echo, async () => {
        throw new ToolError("not_found", "no file /home/alice/secret-plan.txt");
      }),
      { stderr: () => {} },
    );
    await service.invoke(invokeRequest("echo", { text: "a" }), recordingSink().sink, kernelHeaders);
    const span = only("pluggableharness.tool.v1.ToolService/Invoke");
    assert.equal(span.attributes["pluggableharness.outcome"], "error");
    assert.equal(span.attributes["error.type"], "not_found");
    assert.equal(span.attributes["rpc.grpc.status_code"], 0);
    assert.equal(span.status.code, SpanStatusCode.ERROR);
    assert.doesNotMatch(everyAttributeValue(), /secret-plan/);
  });

  it("records invalid arguments and unknown tools by category", async () => {
    const service = createToolService(
      providerWith(echo, async (input) => input),
      { stderr: () => {} },
    );
    await service.invoke(invokeRequest("echo", { text: 5 }), recordingSink().sink);
    await service.invoke(invokeRequest("nope", {}), recordingSink().sink);
    const [invalid, unknown] = spansNamed("pluggableharness.tool.v1.ToolService/Invoke");
    assert.equal(invalid?.attributes["error.type"], "invalid_arguments");
    assert.equal(unknown?.attributes["error.type"], "not_found");
    assert.equal(unknown?.attributes["pluggableharness.tool.name"], undefined);
  });

  it("ends as cancelled (CANCELLED) when the kernel closes the stream", async () => {
    const service = createToolService(
      providerWith(
        echo,
        (_input, ctx) =>
          new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
      ),
      {
        stderr: () => {},
        settleGraceMs: 50,
      },
    );
    const rec = recordingSink();
    const running = service.invoke(invokeRequest("echo", { text: "a" }), rec.sink, kernelHeaders);
    await sleep(5);
    rec.cancel();
    await running;
    const span = only("pluggableharness.tool.v1.ToolService/Invoke");
    assert.equal(span.attributes["pluggableharness.outcome"], "cancelled");
    assert.equal(span.attributes["rpc.grpc.status_code"], 1);
  });

  it("gives the handler its span and a tracer whose spans nest under the call", async () => {
    let seen: Span | undefined;
    const service = createToolService(
      providerWith(stream, async (input, ctx) => {
        seen = ctx.span;
        ctx.span.setAttribute("app.rows", 3);
        await ctx.tracer.startActiveSpan("parse", async (parse: Span) => {
          // The global API inside an active span: a grandchild, through the context manager.
          trace.getTracer("author").startSpan("inner").end();
          parse.end();
        });
        ctx.tracer.startSpan("sibling").end();
        await ctx.progress("half", 0.5);
        return input;
      }),
      { stderr: () => {} },
    );
    await service.invoke(invokeRequest("stream", { text: "a" }), recordingSink().sink, kernelHeaders);
    const call = only("pluggableharness.tool.v1.ToolService/Invoke");
    assert.equal(seen?.spanContext().spanId, call.spanContext().spanId);
    assert.equal(call.attributes["app.rows"], 3);
    assert.equal(parentId(only("parse")), call.spanContext().spanId);
    assert.equal(parentId(only("sibling")), call.spanContext().spanId);
    assert.equal(parentId(only("inner")), only("parse").spanContext().spanId);
    assert.equal(only("inner").spanContext().traceId, kernelTraceId);
  });

  it("puts the handler inside the call's active context, so the global API finds the call's span", async () => {
    let active: string | undefined;
    const service = createToolService(
      providerWith(echo, async (input) => {
        active = trace.getActiveSpan()?.spanContext().spanId;
        return input;
      }),
      { stderr: () => {} },
    );
    await service.invoke(invokeRequest("echo", { text: "a" }), recordingSink().sink, kernelHeaders);
    assert.equal(active, only("pluggableharness.tool.v1.ToolService/Invoke").spanContext().spanId);
  });
});

describe("child processes", () => {
  it("get a span each: the command's file name, its exit code; never its arguments", async () => {
    const service = createToolService(
      providerWith(exec, async (input, ctx) => {
        await ctx.spawn("/bin/sh", ["-c", "echo secret-argument; exit 3"], { exitStatus: false });
        await ctx.spawn("/bin/sh", ["-c", "kill -TERM $$"], { exitStatus: false });
        ctx.exitStatus(0);
        return input;
      }),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(
      invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }),
      rec.sink,
      kernelHeaders,
    );
    assert.equal(onlyTerminal(rec).case, "result");
    const call = only("pluggableharness.tool.v1.ToolService/Invoke");
    const children = spansNamed("spawn sh");
    assert.equal(children.length, 2);
    for (const child of children) {
      assert.equal(parentId(child), call.spanContext().spanId);
      assert.equal(child.kind, SpanKind.INTERNAL);
      assert.equal(child.attributes["process.executable.name"], "sh");
    }
    assert.equal(children[0]!.attributes["process.exit.code"], 3);
    assert.equal(children[1]!.attributes["pluggableharness.process.signal"], "SIGTERM");
    assert.doesNotMatch(everyAttributeValue(), /secret-argument|\/bin/);
  });

  it("a command that cannot start is an errored span with the failure's category", async () => {
    const service = createToolService(
      providerWith(exec, async (input, ctx) => {
        await ctx.spawn("/no/such/command-xyz", []);
        return input;
      }),
      { stderr: () => {} },
    );
    await service.invoke(
      invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }),
      recordingSink().sink,
    );
    const child = only("spawn command-xyz");
    assert.equal(child.attributes["error.type"], "not_found");
    assert.equal(child.status.code, SpanStatusCode.ERROR);
  });
});

describe("kernel callbacks", () => {
  it("are CLIENT spans under the call whose traceparent rides in the callback's metadata", async () => {
    const kernel = tracingKernel();
    const service = createToolService(
      providerWith(echo, async (input, ctx) => {
        ctx.log.info("hello", { secretish: "log-field-value" });
        await ctx.kernel.emit(EventKind.TOOL_RESULT, new TextEncoder().encode("payload"), "1");
        await ctx.kernel.countTokens([{ block: { case: "text", value: { text: "count me" } } }]);
        await ctx.kernel.runSession({ prompt: "sub prompt" });
        return input;
      }),
      { stderr: () => {}, kernel },
    );
    await service.invoke(invokeRequest("echo", { text: "a" }), recordingSink().sink, kernelHeaders);
    await sleep(1);
    const call = only("pluggableharness.tool.v1.ToolService/Invoke");
    assert.deepEqual(
      kernel.headers.map((h) => h.method),
      ["Log", "Emit", "CountTokens", "RunSession"],
    );
    for (const { method, trace: headers } of kernel.headers) {
      const span = only(`pluggableharness.kernel.v1.KernelCallbackService/${method}`);
      assert.equal(span.kind, SpanKind.CLIENT);
      assert.equal(parentId(span), call.spanContext().spanId);
      assert.equal(span.attributes["rpc.method"], method);
      assert.equal(span.attributes["rpc.grpc.status_code"], 0);
      // The kernel's server span for the callback will be the child of this CLIENT span.
      assert.equal(headers?.traceparent, `00-${kernelTraceId}-${span.spanContext().spanId}-01`);
      assert.equal(headers?.tracestate, "kernel=1");
      assert.equal(headers?.baggage, "turn=t%201");
    }
    assert.doesNotMatch(everyAttributeValue(), /log-field-value|count me|sub prompt|payload|hello/);
  });

  it("a refused callback is an errored span with the status code", async () => {
    const kernel = tracingKernel();
    kernel.base.failCallbacks = {
      emit: Object.assign(new Error("12 UNIMPLEMENTED: nope"), { code: 12, details: "nope" }),
    };
    const service = createToolService(
      providerWith(echo, async (input, ctx) => {
        await ctx.kernel.emit(EventKind.TOOL_RESULT, new Uint8Array(), "1").catch(() => {});
        return input;
      }),
      { stderr: () => {}, kernel },
    );
    await service.invoke(invokeRequest("echo", { text: "a" }), recordingSink().sink);
    const span = only("pluggableharness.kernel.v1.KernelCallbackService/Emit");
    assert.equal(span.attributes["rpc.grpc.status_code"], 12);
    assert.equal(span.attributes["error.type"], "UNIMPLEMENTED");
    assert.equal(span.status.code, SpanStatusCode.ERROR);
  });
});

describe("the unary calls", () => {
  const edit = defineTool<{ text: string }, { text: string }>()({
    name: "edit",
    kind: "resource",
    risk: "moderate",
    description: "Edits.",
    inputSchema: textSchema,
    outputSchema: textSchema,
    concurrency: { safe: true },
    idempotent: false,
    preview: true,
  });

  it("GetSchema, Describe, Configure, Preview and Render each get their span; Configure's never holds the config", async () => {
    const provider = defineProvider(
      {
        name: "p",
        version: "1",
        source: "github.com/acme/s",
        tools: { edit },
        renderers: { v1: async () => ({ root: { node: { case: "text", value: { content: "rendered" } } } }) },
      },
      { edit: async (i) => i },
      { edit: async () => ({ root: { node: { case: "text", value: { content: "would edit" } } } }) },
    );
    const service = createToolService(provider, { stderr: () => {} });
    service.getSchema(kernelHeaders);
    service.describe(kernelHeaders);
    await service
      .configure(create(ConfigureRequestSchema, { config: { token: "config-secret" } }), kernelHeaders)
      .catch(() => {});
    await service
      .preview(
        create(PreviewRequestSchema, { call: { id: "p-1", toolName: "edit", arguments: { text: "a" } } }),
        kernelHeaders,
      )
      .catch(() => {});
    await service.render(create(RenderRequestSchema, { schemaVersion: "v9" }), kernelHeaders).catch(() => {});
    for (const method of ["GetSchema", "Describe", "Configure", "Preview", "Render"]) {
      const span = only(`pluggableharness.tool.v1.ToolService/${method}`);
      assert.equal(span.kind, SpanKind.SERVER);
      assert.equal(parentId(span), kernelSpanId);
      assert.equal(span.attributes["rpc.method"], method);
    }
    assert.equal(only("pluggableharness.tool.v1.ToolService/GetSchema").attributes["rpc.grpc.status_code"], 0);
    const preview = only("pluggableharness.tool.v1.ToolService/Preview");
    assert.equal(preview.attributes["pluggableharness.tool.name"], "edit");
    assert.equal(preview.attributes["pluggableharness.tool.risk"], "moderate");
    assert.equal(preview.attributes["pluggableharness.tool.call_id"], "p-1");
    const render = only("pluggableharness.tool.v1.ToolService/Render");
    assert.equal(render.attributes["rpc.grpc.status_code"], 12);
    assert.equal(render.attributes["error.type"], "UNIMPLEMENTED");
    assert.equal(render.status.code, SpanStatusCode.ERROR);
    assert.doesNotMatch(everyAttributeValue(), /config-secret/);
  });

  it("a failing Preview records the ToolError's category and the status code", async () => {
    const provider = defineProvider(
      { name: "p", version: "1", source: "github.com/acme/s", tools: { edit } },
      { edit: async (i) => i },
      {
        edit: async () => {
          throw new ToolError("permission_denied", "outside /srv/private");
        },
      },
    );
    const service = createToolService(provider, { stderr: () => {} });
    await service
      .preview(create(PreviewRequestSchema, { call: { id: "p-2", toolName: "edit", arguments: { text: "a" } } }))
      .catch(() => {});
    const span = only("pluggableharness.tool.v1.ToolService/Preview");
    assert.equal(span.attributes["rpc.grpc.status_code"], 7);
    assert.equal(span.attributes["error.type"], "permission_denied");
    assert.doesNotMatch(everyAttributeValue(), /private/);
  });
});
