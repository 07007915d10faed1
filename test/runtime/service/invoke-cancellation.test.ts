// Cancellation (the kernel closes the stream): the handler's signal aborts, a last report still
// goes out, no terminal event follows, and nothing is logged as a failure.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defineTool } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { providerWith, textSchema } from "./support/sample-tools.js";
import { invokeRequest, recordingSink, sleep, terminalError } from "./support/recording-sink.js";
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

const saveNotes = defineTool<{ text: string }, { text: string }>()({
  name: "save_notes",
  kind: "resource",
  risk: "moderate",
  description: "Writes without streaming.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: false,
  defaultTimeoutMs: 40,
});

describe("ctx.reportCancelled", () => {
  const report = { message: "wrote 1 of 2 files; /tmp/b was not touched", details: { written: ["/tmp/a"] } };

  it("after the kernel's cancel: a Log at warn with the call's session, call id and details, and a last partial_result", async () => {
    const kernel = fakeKernel();
    let reported: Promise<void> | undefined;
    const service = createToolService(
      providerWith(
        write,
        (i, ctx) =>
          new Promise((resolve) => {
            ctx.progress("file 1 written", 0.5);
            ctx.signal.addEventListener("abort", () => {
              reported = ctx.reportCancelled(report);
              resolve({ text: i.text });
            });
          }),
      ),
      { stderr: () => {}, kernel },
    );
    const rec = recordingSink((event) => {
      if (event.event.case === "progress") queueMicrotask(() => rec.cancel());
    });
    await service.invoke(invokeRequest("write", { text: "a" }, { sessionId: "s-7", id: "call-9" }), rec.sink);
    await reported;
    assert.deepEqual(rec.cases(), ["progress", "partialResult"], "never a terminal event after a cancel");
    const partial = rec.events[1]?.event;
    assert.deepEqual(partial?.case === "partialResult" ? partial.value.payload : undefined, {
      cancel_report: {
        message: report.message,
        call_id: "call-9",
        tool: "write",
        turn_id: "turn-1",
        stopped_by: "cancelled",
        details: report.details,
      },
    });
    assert.equal(kernel.logs.length, 1);
    const [log] = kernel.logs;
    assert.equal(log?.sessionId, "s-7");
    assert.equal(log?.entry?.message, report.message);
    assert.equal(log?.entry?.level, 4, "LOG_LEVEL_WARN");
    assert.deepEqual(log?.entry?.fields, {
      cancel_report: true,
      call_id: "call-9",
      tool: "write",
      turn_id: "turn-1",
      stopped_by: "cancelled",
      details: report.details,
    });
  });

  it("after the runtime's own timeout: the report precedes the terminal timeout on the stream, and is logged", async () => {
    const kernel = fakeKernel();
    const service = createToolService(
      providerWith(
        { ...write, declaration: { ...write.declaration, defaultTimeoutMs: 30 } } as typeof write,
        (i, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener("abort", () => {
              void ctx.reportCancelled({ message: "stopped half-way" }).then(() => resolve({ text: i.text }));
            });
          }),
      ),
      { stderr: () => {}, kernel },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("write", { text: "a" }), rec.sink);
    assert.deepEqual(rec.cases(), ["partialResult", "error"]);
    assert.equal(kernel.logs[0]?.entry?.fields?.["stopped_by"], "timeout");
  });

  it("a non-streaming tool's report goes to the Log only; the stream carries no intermediate event", async () => {
    const kernel = fakeKernel();
    const service = createToolService(
      providerWith(
        saveNotes,
        (i, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener("abort", () => {
              void ctx.reportCancelled({ message: "nothing written yet" }).then(() => resolve({ text: i.text }));
            });
          }),
      ),
      { stderr: () => {}, kernel },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("save_notes", { text: "a" }), rec.sink);
    assert.deepEqual(rec.cases(), ["error"], "the terminal timeout alone");
    assert.equal(kernel.logs[0]?.entry?.message, "nothing written yet");
  });

  it("called on a call that was not stopped, it is a provider bug and nothing is logged", async () => {
    const kernel = fakeKernel();
    const service = createToolService(
      providerWith(write, async (i, ctx) => {
        await ctx.reportCancelled({ message: "premature" }).catch(() => {});
        return { text: i.text };
      }),
      { stderr: () => {}, kernel },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("write", { text: "a" }), rec.sink);
    assert.match(
      terminalError(rec).message,
      /provider bug in write: reportCancelled\(\) was called, but the call was not stopped/,
    );
    assert.deepEqual(kernel.logs, []);
  });
});
