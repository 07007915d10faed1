// The kernel callbacks on the handler context: log with the call's session id (stderr when not
// connected or when Log fails, never failing the call), emit, runSession, countTokens.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EventKind } from "../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { LogLevel } from "../../generated/pluggableharness/log/v1/log_pb.js";
import { createToolService } from "../../runtime/index.js";
import type { KernelClient } from "../../runtime/kernel/kernel-client.js";
import { echo, providerWith } from "./support/sample-tools.js";
import { fakeKernel } from "./support/fake-kernel.js";
import { invokeRequest, onlyTerminal, recordingSink, sleep } from "./support/recording-sink.js";

async function run(handler: (i: any, ctx: any) => Promise<unknown>, kernel?: KernelClient | (() => KernelClient | undefined)) {
  const stderr: string[] = [];
  const service = createToolService(providerWith(echo, handler), { stderr: (l) => stderr.push(l), ...(kernel ? { kernel } : {}) });
  const rec = recordingSink();
  await service.invoke(invokeRequest("echo", { text: "a" }, { sessionId: "sess-42" }), rec.sink);
  await sleep(1);
  return { rec, stderr };
}

describe("kernel callbacks", () => {
  it("ctx.log sends KernelCallbackService.Log with the call's session id", async () => {
    const kernel = fakeKernel();
    const { rec } = await run(async (i, ctx) => {
      ctx.log.info("hello", { n: 1 });
      ctx.log.error("bad");
      return i;
    }, kernel);
    assert.equal(onlyTerminal(rec).case, "result");
    assert.deepEqual(kernel.logs.map((l) => [l.sessionId, l.entry?.level, l.entry?.message, l.entry?.logger]), [
      ["sess-42", LogLevel.INFO, "hello", "test-provider.echo"],
      ["sess-42", LogLevel.ERROR, "bad", "test-provider.echo"],
    ]);
    assert.deepEqual(kernel.logs[0]!.entry?.fields, { n: 1 });
  });

  it("without a kernel connection, log lines go to stderr as go-plugin JSON lines", async () => {
    const { rec, stderr } = await run(async (i, ctx) => {
      ctx.log.warn("no kernel yet");
      return i;
    });
    assert.equal(onlyTerminal(rec).case, "result");
    assert.equal(stderr.length, 1);
    const line = JSON.parse(stderr[0]!) as Record<string, string>;
    assert.equal(line["@level"], "warn");
    assert.equal(line["@message"], "no kernel yet");
    assert.equal(line["session_id"], "sess-42");
  });

  it("a failing Log never fails the call; the line falls back to stderr", async () => {
    const kernel = fakeKernel();
    kernel.failLog = new Error("broker gone");
    const { rec, stderr } = await run(async (i, ctx) => {
      ctx.log.info("still fine");
      await ctx.kernel.log("info", "awaited too");
      return i;
    }, kernel);
    assert.equal(onlyTerminal(rec).case, "result");
    assert.equal(stderr.length, 2);
  });

  it("a kernel getter is read at call time (the broker connects after the handshake)", async () => {
    const kernel = fakeKernel();
    let connected: KernelClient | undefined;
    const stderr: string[] = [];
    const service = createToolService(providerWith(echo, async (i, ctx) => { ctx.log.info("x"); return i; }), { stderr: (l) => stderr.push(l), kernel: () => connected });
    connected = kernel;
    await service.invoke(invokeRequest("echo", { text: "a" }), recordingSink().sink);
    await sleep(1);
    assert.equal(kernel.logs.length, 1);
  });

  it("emit, runSession and countTokens reach the kernel with the session id bound", async () => {
    const kernel = fakeKernel();
    let emitted: unknown;
    let counted: unknown;
    await run(async (i, ctx) => {
      emitted = await ctx.kernel.emit(EventKind.TOOL_RESULT, new TextEncoder().encode("{}"), "v1");
      await ctx.kernel.runSession({ profile: "helper", prompt: "do it", remainingDepth: 1 });
      counted = await ctx.kernel.countTokens([{ block: { case: "text", value: { text: "hi" } } } as never]);
      return i;
    }, kernel);
    assert.deepEqual(emitted, { id: "event-1", sequence: 1n });
    assert.deepEqual(kernel.emits.map((e) => [e.sessionId, e.kind, e.schemaVersion]), [["sess-42", EventKind.TOOL_RESULT, "v1"]]);
    assert.equal(kernel.sessions[0]?.profile, "helper");
    assert.deepEqual(counted, { count: 42n, exact: true });
  });

  it("emit without a kernel connection rejects, and the handler can classify it", async () => {
    const { rec } = await run(async (i, ctx) => {
      await ctx.kernel.emit(EventKind.TOOL_RESULT, new Uint8Array(), "v1");
      return i;
    });
    const t = onlyTerminal(rec);
    assert.equal(t.case, "error");
    assert.match(t.case === "error" ? t.value.message : "", /not connected/);
  });
});
