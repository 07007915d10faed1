// Flow control between the call and a transport that stops taking events (a kernel that does not
// read): a child's pipes pause, a handler awaiting its emits waits, output of one stream merges into
// chunks of at most maxOutputChunkBytes (and longer output is split), order and redaction hold,
// and a cancel still ends everything while the transport is stuck.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { create, type JsonObject } from "@bufbuild/protobuf";
import {
  ConfigureRequestSchema,
  OutputStream,
  type InvokeResponse,
  type ToolEvent,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineConfig } from "../../../runtime/index.js";
import { createToolService, maxOutputChunkBytes, type InvokeSink } from "../../../runtime/service/calls/index.js";
import { exec, providerWith } from "./support/sample-tools.js";
import { invokeRequest, sleep } from "./support/recording-sink.js";

/**
 * A transport whose buffer holds `capacity` events: send() says false once it is full, and only
 * reading makes room again: startReading() reads every event one macrotask after it arrives.
 */
function stuckTransport(capacity = 2) {
  const controller = new AbortController();
  const received: ToolEvent[] = [];
  let unread = 0;
  let wake: (() => void) | undefined;
  let reading = false;
  const read = (count: number): void => {
    unread = Math.max(0, unread - count);
    if (unread < capacity && wake) {
      const w = wake;
      wake = undefined;
      w();
    }
  };
  // Once reading, each event is read one macrotask after it was sent.
  const readLater = (): void => {
    setImmediate(() => read(1));
  };
  const sink: InvokeSink = {
    send(response: InvokeResponse) {
      if (response.event) received.push(response.event);
      unread++;
      if (reading) readLater();
      return unread < capacity;
    },
    drained: () => (unread < capacity ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve))),
    cancelled: controller.signal,
  };
  return {
    sink,
    received,
    /** Starts reading at a steady pace, to the end. */
    startReading(): void {
      if (reading) return;
      reading = true;
      for (let i = 0; i < unread; i++) readLater();
    },
    cancel: () => controller.abort(),
    chunks: (stream: OutputStream) =>
      received.flatMap((e) =>
        e.event.case === "outputChunk" && e.event.value.stream === stream ? [e.event.value.data] : [],
      ),
    cases: () => received.map((e) => String(e.event.case)),
  };
}

const service = (handler: (input: unknown, ctx: any) => Promise<unknown>, extra = {}) =>
  createToolService(providerWith(exec, handler, extra), { stderr: () => {}, killGraceMs: 50, settleGraceMs: 2_000 });

const bytesOf = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks);
const scratch = mkdtempSync(path.join(os.tmpdir(), "harness-tool-flow-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Bytes the process has written so far (/proc/<pid>/io wchar). */
function bytesWritten(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  return Number(/wchar:\s+(\d+)/.exec(io)?.[1]);
}

describe("flow control of Invoke", () => {
  it("pauses a child's pipes while the kernel does not read; then delivers every byte in order, exit_status, result", async () => {
    const total = 32 * 1024 * 1024;
    const pidFile = path.join(scratch, "child.pid");
    // 32 MiB of a pattern that changes every byte position mod 251, so any reordering shows in the hash.
    const script = `const fs=require('fs');fs.writeFileSync(${JSON.stringify(pidFile)},String(process.pid));const b=Buffer.alloc(1<<20);for(let i=0;i<b.length;i++)b[i]=i%251;let n=${total / (1 << 20)};const go=()=>{while(n>0){n--;if(!process.stdout.write(b.subarray(0)))return process.stdout.once('drain',go);}};go();`;
    const transport = stuckTransport();
    const running = service(async (_i, ctx) => {
      const exit = await ctx.spawn(process.execPath, ["-e", script]);
      return { text: `exit ${exit.exitCode}` };
    }).invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: scratch }), transport.sink);

    while (!existsSync(pidFile) || transport.received.length === 0) await sleep(10);
    const pid = Number(readFileSync(pidFile, "utf8"));
    // Let the child run: without flow control it would write all 32 MiB into the provider now.
    await sleep(300);
    const written = bytesWritten(pid);
    assert.ok(
      written < 4 * 1024 * 1024,
      `the child is held back while the kernel does not read: it wrote ${written} bytes`,
    );

    transport.startReading();
    await running;
    const stdout = bytesOf(transport.chunks(OutputStream.STDOUT));
    assert.equal(stdout.byteLength, total);
    const expected = createHash("sha256");
    const block = Buffer.alloc(1 << 20);
    for (let i = 0; i < block.length; i++) block[i] = i % 251;
    for (let i = 0; i < total / (1 << 20); i++) expected.update(block);
    assert.equal(createHash("sha256").update(stdout).digest("hex"), expected.digest("hex"), "every byte, in order");
    assert.ok(
      transport.chunks(OutputStream.STDOUT).every((c) => c.byteLength <= maxOutputChunkBytes),
      "no chunk above the limit",
    );
    assert.deepEqual(transport.cases().slice(-2), ["exitStatus", "result"]);
  });

  it("a handler awaiting output() waits while the kernel does not read, and goes on when it does", async () => {
    let emitted = 0;
    const chunk = new Uint8Array(maxOutputChunkBytes).fill(0x61);
    const transport = stuckTransport();
    const running = service(async (_i, ctx) => {
      for (let i = 0; i < 200; i++) {
        await ctx.output("stdout", chunk);
        emitted++;
      }
      ctx.exitStatus(0);
      return { text: "done" };
    }).invoke(invokeRequest("exec", { text: "a" }), transport.sink);
    await sleep(100);
    assert.ok(emitted <= 4, `the loop waits for the kernel: ${emitted} of 200 emits went through`);
    transport.startReading();
    await running;
    assert.equal(emitted, 200);
    assert.equal(bytesOf(transport.chunks(OutputStream.STDOUT)).byteLength, 200 * maxOutputChunkBytes);
    assert.deepEqual(transport.cases().slice(-2), ["exitStatus", "result"]);
  });

  it("merges output of one stream while the kernel lags, keeps the order across streams and events, splits long output", async () => {
    const transport = stuckTransport(1);
    const running = service(async (_i, ctx) => {
      ctx.output("stdout", "first");
      for (let i = 0; i < 100; i++) ctx.output("stdout", "a".repeat(100));
      ctx.output("stderr", "between");
      ctx.progress("halfway", 0.5);
      for (let i = 0; i < 100; i++) ctx.output("stdout", "b".repeat(100));
      ctx.output("stdout", "c".repeat(2 * maxOutputChunkBytes + 10));
      ctx.exitStatus(0);
      return { text: "done" };
    }).invoke(invokeRequest("exec", { text: "a" }), transport.sink);
    transport.startReading();
    await running;
    const shape = transport.received.map((e) =>
      e.event.case === "outputChunk"
        ? `${e.event.value.stream === OutputStream.STDOUT ? "out" : "err"}:${e.event.value.data.byteLength}`
        : String(e.event.case),
    );
    // "first" went out at once; then the transport was full, so the rest merged up to the limit.
    assert.deepEqual(shape, [
      "out:5",
      "out:10000",
      "err:7",
      "progress",
      `out:${maxOutputChunkBytes}`,
      `out:${maxOutputChunkBytes}`,
      `out:${10000 + 2 * maxOutputChunkBytes + 10 - 2 * maxOutputChunkBytes}`,
      "exitStatus",
      "result",
    ]);
    const stdout = bytesOf(transport.chunks(OutputStream.STDOUT)).toString();
    assert.equal(stdout, `first${"a".repeat(10000)}${"b".repeat(10000)}${"c".repeat(2 * maxOutputChunkBytes + 10)}`);
  });

  it("redacts a secret that straddles the chunk limit", async () => {
    const secret = "hunter2-very-secret";
    const config = defineConfig<{ token: string }>([{ name: "token", type: "string", sensitive: true }]);
    const svc = service(
      async (_i, ctx) => {
        await ctx.output("stdout", `${"x".repeat(maxOutputChunkBytes - 7)}${secret}${"y".repeat(100)}`);
        ctx.exitStatus(0);
        return { text: "done" };
      },
      { config },
    );
    await svc.configure(create(ConfigureRequestSchema, { config: { token: secret } as JsonObject }));
    const transport = stuckTransport(1);
    const running = svc.invoke(invokeRequest("exec", { text: "a" }), transport.sink);
    transport.startReading();
    await running;
    const stdout = bytesOf(transport.chunks(OutputStream.STDOUT)).toString();
    assert.equal(stdout, `${"x".repeat(maxOutputChunkBytes - 7)}[REDACTED]${"y".repeat(100)}`);
    assert.ok(transport.chunks(OutputStream.STDOUT).every((c) => c.byteLength <= maxOutputChunkBytes));
  });

  it("a cancel while the kernel does not read ends the call: the waiting handler resumes, the child dies, no terminal event", async () => {
    let resumedAfterCancel = false;
    const transport = stuckTransport();
    const child = service(async (_i, ctx) => {
      await ctx.spawn("/bin/sh", ["-c", "exec yes"]);
      return { text: "never" };
    }).invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: scratch }), transport.sink);
    const handler = stuckTransport();
    const looping = service(async (_i, ctx) => {
      for (;;) {
        await ctx.output("stdout", new Uint8Array(maxOutputChunkBytes));
        if (ctx.signal.aborted) {
          resumedAfterCancel = true;
          return { text: "stopped" };
        }
      }
    }).invoke(invokeRequest("exec", { text: "a" }), handler.sink);
    while (transport.received.length === 0 || handler.received.length === 0) await sleep(10);
    transport.cancel();
    handler.cancel();
    await Promise.all([child, looping]);
    assert.ok(resumedAfterCancel, "the awaiting handler saw its signal");
    for (const t of [transport, handler])
      assert.ok(!t.cases().includes("result") && !t.cases().includes("error"), t.cases().join(","));
  });

  it("emits that are not awaited still all go out, in order (the synchronous style keeps working)", async () => {
    const transport = stuckTransport(1);
    const running = service(async (_i, ctx) => {
      for (let i = 0; i < 1000; i++) ctx.output(i % 2 === 0 ? "stdout" : "stderr", `${i};`);
      ctx.exitStatus(0);
      return { text: "done" };
    }).invoke(invokeRequest("exec", { text: "a" }), transport.sink);
    transport.startReading();
    await running;
    const lines = transport.received.flatMap((e) =>
      e.event.case === "outputChunk" ? Buffer.from(e.event.value.data).toString().split(";").filter(Boolean) : [],
    );
    assert.deepEqual(
      lines.map(Number),
      Array.from({ length: 1000 }, (_, i) => i),
    );
  });
});
