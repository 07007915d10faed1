// Telemetry off (no OTEL_* export variables, no SDK registered): nothing beyond
// @opentelemetry/api is loaded, the handler's span does not record, and the kernel's trace
// context still passes through to the callbacks, so the kernel's callback spans join its trace.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { INVALID_TRACEID, trace, type Span } from "@opentelemetry/api";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { startCallSpan } from "../../../runtime/telemetry/call-spans.js";
import type { TraceHeaders } from "../../../runtime/telemetry/trace-headers.js";
import { repoRoot } from "../../support/buf.js";
import { fakeKernel } from "../service/support/fake-kernel.js";
import { invokeRequest, onlyTerminal, recordingSink } from "../service/support/recording-sink.js";
import { echo, providerWith } from "../service/support/sample-tools.js";

const kernelTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("with telemetry off", () => {
  it("the handler's span carries the kernel's context without recording, and callbacks pass it on", async () => {
    const base = fakeKernel();
    const seen: TraceHeaders[] = [];
    let span: Span | undefined;
    let nested: unknown;
    const service = createToolService(
      providerWith(echo, async (input, ctx) => {
        span = ctx.span;
        nested = ctx.tracer.startActiveSpan("work", (s: Span) => {
          s.end();
          return "returned";
        });
        await ctx.kernel.log("info", "hello");
        return input;
      }),
      {
        stderr: () => {},
        kernel: {
          ...base,
          log: (request, trace) => {
            if (trace) seen.push(trace);
            return base.log(request);
          },
        },
      },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink, { traceparent: kernelTraceparent });
    assert.equal(onlyTerminal(rec).case, "result");
    assert.equal(span?.isRecording(), false);
    assert.equal(span?.spanContext().traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
    assert.equal(nested, "returned");
    assert.deepEqual(seen, [{ traceparent: kernelTraceparent }]);
  });

  it("a call without the kernel's trace context has no trace: one context shared by all such calls, no traceparent on callbacks", async () => {
    const base = fakeKernel();
    const seen: (TraceHeaders | undefined)[] = [];
    let span: Span | undefined;
    let child: Span | undefined;
    const service = createToolService(
      providerWith(echo, async (input, ctx) => {
        span = ctx.span;
        const work = ctx.tracer.startSpan("work");
        work.end();
        child = work;
        await ctx.kernel.log("info", "hello");
        return input;
      }),
      {
        stderr: () => {},
        kernel: {
          ...base,
          log: (request, trace) => {
            seen.push(trace);
            return base.log(request);
          },
        },
      },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
    assert.equal(onlyTerminal(rec).case, "result");
    for (const s of [span, child]) {
      assert.equal(s?.isRecording(), false);
      assert.equal(s?.spanContext().traceId, INVALID_TRACEID);
    }
    assert.deepEqual(seen, [undefined]);
    // Built once for every untraced call; a call with the kernel's context gets its own.
    assert.equal(startCallSpan("Invoke", undefined).context, startCallSpan("Describe", undefined).context);
    const traced = startCallSpan("Invoke", { traceparent: kernelTraceparent });
    assert.notEqual(traced.context, startCallSpan("Invoke", undefined).context);
    assert.equal(trace.getSpanContext(traced.context)?.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  });

  it("no SDK module is loaded; with OTEL_EXPORTER_OTLP_ENDPOINT the SDK and its OTLP exporter are", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-otel-off-"));
    try {
      const run = (name: string, env: Record<string, string>) => {
        const log = path.join(dir, `${name}.log`);
        const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("OTEL_")));
        const result = spawnSync(
          process.execPath,
          [
            "--conditions=harness-tool-source",
            "--import",
            path.join(repoRoot, "node_modules/tsx/dist/esm/index.mjs"),
            "--import",
            path.join(repoRoot, "test/runtime/telemetry/fixtures/record-resolutions.mjs"),
            path.join(repoRoot, "test/runtime/telemetry/fixtures/traced-call.ts"),
          ],
          {
            cwd: repoRoot,
            encoding: "utf8",
            env: { ...clean, NODE_OPTIONS: "", HARNESS_TOOL_RESOLUTION_LOG: log, ...env },
          },
        );
        assert.equal(result.status, 0, result.stderr);
        const report = JSON.parse(result.stderr.trim().split("\n").pop()!) as {
          exporting: boolean;
          callback?: TraceHeaders;
        };
        const packages = new Set(
          readFileSync(log, "utf8")
            .split("\n")
            .map((url) => /node_modules\/(@opentelemetry\/[^/]+)/.exec(url)?.[1])
            .filter((name): name is string => name !== undefined),
        );
        return { report, packages };
      };

      const off = run("off", {});
      assert.equal(off.report.exporting, false);
      assert.deepEqual([...off.packages], ["@opentelemetry/api"]);
      assert.equal(off.report.callback?.traceparent, kernelTraceparent);

      // The control: the same program with an endpoint loads the SDK, and the callback then
      // continues from the provider's own (recording) span.
      const on = run("on", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
      assert.equal(on.report.exporting, true);
      for (const name of [
        "@opentelemetry/sdk-trace-node",
        "@opentelemetry/resources",
        "@opentelemetry/exporter-trace-otlp-proto",
      ])
        assert.ok(on.packages.has(name), name);
      assert.match(
        on.report.callback?.traceparent ?? "",
        /^00-4bf92f3577b34da6a3ce929d0e0e4736-(?!00f067aa0ba902b7)[0-9a-f]{16}-01$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
