// The kernel callbacks on the handler context: log with the call's session id (stderr when not
// connected or when Log fails, never failing the call), emit, runSession, countTokens.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { fromBinary } from "@bufbuild/protobuf";
import { ToolResultEventSchema } from "../../../generated/pluggableharness/event/v1/event_pb.js";
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
      emitted = await ctx.kernel.emit(EventKind.TOOL_RESULT, new TextEncoder().encode("{}"), "1");
      await ctx.kernel.runSession({ profile: "helper", prompt: "do it", remainingDepth: 1 });
      counted = await ctx.kernel.countTokens([{ block: { case: "text", value: { text: "hi" } } } as never]);
      return i;
    }, kernel);
    assert.deepEqual(emitted, { id: "event-1", sequence: 1n });
    assert.deepEqual(
      kernel.emits.map((e) => [e.sessionId, e.kind, e.schemaVersion]),
      [["sess-42", EventKind.TOOL_RESULT, "1"]],
    );
    assert.equal(kernel.sessions[0]?.profile, "helper");
    assert.deepEqual(counted, { count: 42n, exact: true });
  });

  it("emit without a kernel connection rejects, and the handler can classify it", async () => {
    const { rec } = await run(async (i, ctx) => {
      await ctx.kernel.emit(EventKind.TOOL_RESULT, new Uint8Array(), "1");
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
      Emit: (ctx: any) => ctx.kernel.emit(EventKind.TOOL_RESULT, new Uint8Array(), "1"),
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
      await ctx.kernel.emit(EventKind.TOOL_RESULT, new Uint8Array(), "1");
      return i;
    }, kernel);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" ? t.value.category : t.case, ToolErrorCategory.UNKNOWN);
    assert.match(JSON.stringify(t.case === "error" ? t.value.details : {}), /connection refused/);
  });

  it("Emit of kind UNSPECIFIED, of HOOK_ERROR or with an empty schema_version is refused before it reaches the kernel", async () => {
    const cases: [EventKind, string, RegExp][] = [
      [EventKind.UNSPECIFIED, "1", /Emit refused before it reached the kernel: its kind is EVENT_KIND_UNSPECIFIED/],
      [EventKind.HOOK_ERROR, "1", /EVENT_KIND_HOOK_ERROR is synthesized by the kernel/],
      [
        EventKind.TOOL_RESULT,
        "",
        /its schema_version is empty \(name the payload's shape: "1" for an event.v1 message/,
      ],
      [99 as EventKind, "1", /99 is not an EventKind/],
    ];
    for (const [kind, version, message] of cases) {
      const kernel = fakeKernel();
      const { rec } = await run(async (i, ctx) => {
        await ctx.kernel.emit(kind, new Uint8Array(), version);
        return i;
      }, kernel);
      const t = onlyTerminal(rec);
      assert.equal(t.case === "error" ? t.value.category : t.case, ToolErrorCategory.UNKNOWN);
      assert.match(t.case === "error" ? t.value.message : "", message);
      assert.equal((t.case === "error" ? t.value.details : {})?.["callback"], "Emit");
      assert.deepEqual(kernel.emits, [], "nothing reached the kernel");
    }
  });

  it('emitEvent sends the event.v1 message of its kind, encoded, with schema_version "1"', async () => {
    const kernel = fakeKernel();
    await run(async (i, ctx) => {
      await ctx.kernel.emitEvent({
        kind: "tool_result",
        payload: { toolCallId: "call-1", outcome: { case: "result", value: { payload: { rows: 3 } } } },
      });
      return i;
    }, kernel);
    const [emit] = kernel.emits;
    assert.equal(emit?.kind, EventKind.TOOL_RESULT);
    assert.equal(emit?.schemaVersion, "1");
    const decoded = fromBinary(ToolResultEventSchema, emit?.payload ?? new Uint8Array());
    assert.equal(decoded.toolCallId, "call-1");
    assert.deepEqual(decoded.outcome.case === "result" ? decoded.outcome.value.payload : undefined, { rows: 3 });
    const { rec } = await run(async (i, ctx) => {
      await ctx.kernel.emitEvent({ kind: "hook_error" as "tool_call", payload: {} });
      return i;
    }, fakeKernel());
    assert.match(terminalMessage(rec), /emitEvent\(\) takes the kinds a provider emits .*not "hook_error"/);
  });

  it("RunSession is bound to the call's session as its parent; naming another session is refused", async () => {
    const kernel = fakeKernel();
    await run(async (i, ctx) => {
      await ctx.kernel.runSession({ profile: "helper", prompt: "p", remainingDepth: 1 });
      await ctx.kernel.runSession({ profile: "helper", prompt: "q", parentSessionId: "sess-42" });
      return i;
    }, kernel);
    assert.deepEqual(
      kernel.sessions.map((s) => s.parentSessionId),
      ["sess-42", "sess-42"],
    );
    const other = fakeKernel();
    const { rec } = await run(async (i, ctx) => {
      await ctx.kernel.runSession({ profile: "helper", prompt: "p", parentSessionId: "someone-else" });
      return i;
    }, other);
    assert.match(
      terminalMessage(rec),
      /RunSession refused before it reached the kernel: parent_session_id "someone-else" is not the calling session "sess-42"/,
    );
    assert.deepEqual(other.sessions, []);
  });
});

function terminalMessage(rec: Parameters<typeof onlyTerminal>[0]): string {
  const t = onlyTerminal(rec);
  return t.case === "error" ? t.value.message : `${t.case}`;
}
