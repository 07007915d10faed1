// The kernel callbacks on the handler context: log with the call's session id (stderr when not
// connected or when Log fails, never failing the call), emit, runSession, countTokens.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { EventKind } from "../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { LogLevel } from "../../../generated/pluggableharness/log/v1/log_pb.js";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { isToolError } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import type { KernelClient } from "../../../runtime/service/kernel/kernel-client.js";
import { echo, providerWith } from "./support/sample-tools.js";
import { fakeKernel } from "./support/fake-kernel.js";
import { invokeRequest, onlyTerminal, recordingSink, sleep } from "./support/recording-sink.js";

async function run(
  handler: (i: any, ctx: any) => Promise<unknown>,
  kernel?: KernelClient | (() => KernelClient | undefined),
) {
  const stderr: string[] = [];
  const service = createToolService(providerWith(echo, handler), {
    stderr: (l) => stderr.push(l),
    ...(kernel ? { kernel } : {}),
  });
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
    assert.deepEqual(
      kernel.logs.map((l) => [l.sessionId, l.entry?.level, l.entry?.message, l.entry?.logger]),
      [
        ["sess-42", LogLevel.INFO, "hello", "test-provider.echo"],
        ["sess-42", LogLevel.ERROR, "bad", "test-provider.echo"],
      ],
    );
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
    const service = createToolService(
      providerWith(echo, async (i, ctx) => {
        ctx.log.info("x");
        return i;
      }),
      { stderr: (l) => stderr.push(l), kernel: () => connected },
    );
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
    assert.deepEqual(
      kernel.emits.map((e) => [e.sessionId, e.kind, e.schemaVersion]),
      [["sess-42", EventKind.TOOL_RESULT, "v1"]],
    );
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

  /** A failed callback as grpc-js reports it; the kernel's text for Emit at f045591 by default. */
  const callError = (code: status, details: string): ServiceError =>
    Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });

  it("a callback the kernel answers UNIMPLEMENTED ends an uncaught call as execution_failed, not retryable, naming the callback", async () => {
    // The kernel at f045591 implements Log only: Emit, RunSession and CountTokens answer UNIMPLEMENTED.
    const calls = {
      Emit: (ctx: any) => ctx.kernel.emit(EventKind.TOOL_RESULT, new Uint8Array(), "v1"),
      RunSession: (ctx: any) => ctx.kernel.runSession({ profile: "helper", prompt: "p", remainingDepth: 1 }),
      CountTokens: (ctx: any) => ctx.kernel.countTokens([]),
    };
    for (const [callback, call] of Object.entries(calls)) {
      const kernel = fakeKernel();
      const refusal = callError(status.UNIMPLEMENTED, `kernelcallback: ${callback} not implemented`);
      kernel.failCallbacks = { emit: refusal, runSession: refusal, countTokens: refusal };
      const { rec } = await run(async (i, ctx) => {
        await call(ctx);
        return i;
      }, kernel);
      const t = onlyTerminal(rec);
      assert.equal(t.case, "error", callback);
      if (t.case !== "error") continue;
      assert.equal(t.value.category, ToolErrorCategory.EXECUTION_FAILED, callback);
      assert.equal(t.value.retryable, false, callback);
      assert.match(
        t.value.message,
        new RegExp(`the kernel does not implement ${callback}.*kernelcallback: ${callback} not implemented`),
      );
      assert.deepEqual(t.value.details, {
        callback,
        code: "UNIMPLEMENTED",
        message: `kernelcallback: ${callback} not implemented`,
      });
    }
  });

  it("a handler can catch the kernel's refusal as a ToolError, with the gRPC error as its cause", async () => {
    const kernel = fakeKernel();
    const refusal = callError(status.UNIMPLEMENTED, "kernelcallback: RunSession not implemented");
    kernel.failCallbacks = { runSession: refusal };
    let caught: unknown;
    const { rec } = await run(async (i, ctx) => {
      try {
        await ctx.kernel.runSession({ profile: "helper", prompt: "p", remainingDepth: 1 });
      } catch (error) {
        caught = error;
      }
      return i;
    }, kernel);
    assert.equal(onlyTerminal(rec).case, "result");
    assert.ok(isToolError(caught) && caught.category === "execution_failed");
    assert.equal((caught as Error).cause, refusal);
  });

  it("other callback failures stay unexpected: unknown, with the raw error in details", async () => {
    const kernel = fakeKernel();
    kernel.failCallbacks = { emit: callError(status.UNAVAILABLE, "connection refused") };
    const { rec } = await run(async (i, ctx) => {
      await ctx.kernel.emit(EventKind.TOOL_RESULT, new Uint8Array(), "v1");
      return i;
    }, kernel);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" ? t.value.category : t.case, ToolErrorCategory.UNKNOWN);
    assert.match(JSON.stringify(t.case === "error" ? t.value.details : {}), /connection refused/);
  });
});
