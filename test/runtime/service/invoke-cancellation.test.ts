// Cancellation (the kernel closes the stream): the handler's signal aborts, a last report still
// goes out, no terminal event follows, and nothing is logged as a failure.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineTool } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { providerWith, textSchema } from "./support/sample-tools.js";
import { invokeRequest, recordingSink, sleep } from "./support/recording-sink.js";
import { fakeKernel } from "./support/fake-kernel.js";

const write = defineTool<{ text: string }, { text: string }>()({
  name: "write",
  kind: "resource",
  risk: "moderate",
  description: "Writes in steps.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: false,
  streaming: true,
  defaultTimeoutMs: 5_000,
});

describe("cancellation", () => {
  it("aborts the signal, passes the last partial_result, and sends no terminal event even if the handler returns success", async () => {
    const lines: string[] = [];
    const kernel = fakeKernel();
    let aborted = false;
    const service = createToolService(
      providerWith(
        write,
        (i, ctx) =>
          new Promise((resolve) => {
            ctx.progress("step 1 done", 0.5);
            ctx.signal.addEventListener("abort", () => {
              aborted = true;
              ctx.partialResult({ written: "step 1 of 2; step 2 never started" });
              resolve({ text: i.text });
            });
          }),
      ),
      { stderr: (l) => lines.push(l), kernel },
    );
    const rec = recordingSink((event) => {
      if (event.event.case === "progress") queueMicrotask(() => rec.cancel());
    });
    await service.invoke(invokeRequest("write", { text: "a" }), rec.sink);
    assert.equal(aborted, true);
    assert.deepEqual(rec.cases(), ["progress", "partialResult"]);
    assert.deepEqual(lines, []);
    assert.deepEqual(kernel.logs, []);
  });

  it("a handler that throws on cancel produces no terminal error", async () => {
    const service = createToolService(
      providerWith(
        write,
        (_i, ctx) =>
          new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(new Error("aborted")))),
      ),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    const done = service.invoke(invokeRequest("write", { text: "a" }), rec.sink);
    await sleep(1);
    rec.cancel();
    await done;
    assert.deepEqual(rec.cases(), []);
  });

  it("a handler that ignores cancellation: invoke still resolves after the grace, and later events are dropped", async () => {
    let late: (() => void) | undefined;
    const service = createToolService(
      providerWith(
        write,
        (_i, ctx) =>
          new Promise(() => {
            late = () => ctx.progress("late");
          }),
      ),
      { stderr: () => {}, settleGraceMs: 10 },
    );
    const rec = recordingSink();
    const done = service.invoke(invokeRequest("write", { text: "a" }), rec.sink);
    await sleep(1);
    rec.cancel();
    await done;
    late!();
    assert.deepEqual(rec.cases(), []);
    assert.equal(service.inFlight(), 0);
  });

  it("a call whose stream is already closed is not run", async () => {
    let ran = false;
    const service = createToolService(
      providerWith(write, async (i) => {
        ran = true;
        return i;
      }),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    rec.cancel();
    await service.invoke(invokeRequest("write", { text: "a" }), rec.sink);
    assert.equal(ran, false);
    assert.deepEqual(rec.cases(), []);
  });

  it("cancelling after the terminal event changes nothing", async () => {
    const service = createToolService(
      providerWith(write, async (i) => i),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("write", { text: "a" }), rec.sink);
    rec.cancel();
    assert.deepEqual(rec.cases(), ["result"]);
  });
});
