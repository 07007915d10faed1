// default_timeout is enforced: the handler's signal aborts and the call ends with timeout; a late
// result is dropped. Small timeouts, no wall-clock bounds asserted.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { dataTool, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink, sleep, terminalError } from "./support/recording-sink.js";

describe("default timeout", () => {
  it("aborts the handler's signal with a timeout reason and ends with timeout", async () => {
    let reason: unknown;
    const tool = dataTool("slow", { defaultTimeoutMs: 20 });
    const service = createToolService(
      providerWith(
        tool,
        (_i, ctx) =>
          new Promise((_, reject) => {
            ctx.signal.addEventListener("abort", () => {
              reason = ctx.signal.reason;
              reject(ctx.signal.reason);
            });
          }),
      ),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("slow", { text: "a" }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.TIMEOUT);
    assert.match(t.case === "error" ? t.value.message : "", /within its default timeout of 20 ms/);
    assert.equal((reason as { category?: string }).category, "timeout");
  });

  it("a handler that ignores its signal still ends with timeout, and its late result is dropped", async () => {
    let finish: ((v: unknown) => void) | undefined;
    const tool = dataTool("stubborn", { defaultTimeoutMs: 20 });
    const service = createToolService(
      providerWith(
        tool,
        () =>
          new Promise((resolve) => {
            finish = resolve;
          }),
      ),
      { stderr: () => {}, settleGraceMs: 10 },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("stubborn", { text: "a" }), rec.sink);
    finish!({ text: "late" });
    await sleep(5);
    assert.deepEqual(rec.cases(), ["error"]);
    assert.equal(terminalError(rec).category, ToolErrorCategory.TIMEOUT);
  });

  it("a handler that resolves a result after the timeout fired still ends with timeout", async () => {
    const tool = dataTool("racy", { defaultTimeoutMs: 20 });
    const service = createToolService(
      providerWith(
        tool,
        (i, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ text: i.text }))),
      ),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("racy", { text: "a" }), rec.sink);
    assert.deepEqual(rec.cases(), ["error"]);
    assert.equal(terminalError(rec).category, ToolErrorCategory.TIMEOUT);
  });

  it("events reported while winding down after the timeout come before the terminal error", async () => {
    const tool = dataTool("reporting", { defaultTimeoutMs: 20, streaming: true });
    const service = createToolService(
      providerWith(
        tool,
        (_i, ctx) =>
          new Promise((_, reject) =>
            ctx.signal.addEventListener("abort", () => {
              ctx.partialResult({ done: "half" });
              reject(ctx.signal.reason);
            }),
          ),
      ),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("reporting", { text: "a" }), rec.sink);
    assert.deepEqual(rec.cases(), ["partialResult", "error"]);
  });
});
