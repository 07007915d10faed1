/**
 * The stop of a served provider (runtime/transport/provider-life.ts) as go-plugin's Kill() meets it:
 * the host's streams are still open when the server is shut, and the errors Node builds for them
 * must be built without stack frames: with source maps on (dist/provider.mjs) the first stack with
 * frames parses the bundle's whole source map, which held every Kill() for ~100 ms.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client, credentials, Metadata, Server, ServerCredentials, type ServerWritableStream } from "@grpc/grpc-js";
import { create, toBinary } from "@bufbuild/protobuf";
import { createBrokerKernelClient } from "../../../runtime/transport/broker-kernel-client.js";
import { EmptySchema } from "../../../runtime/transport/go-plugin-messages.js";
import { addGoPluginServices } from "../../../runtime/transport/go-plugin-services.js";
import { goPluginServices } from "../../../runtime/transport/grpc-service-definition.js";
import type { BrokerConnections } from "../../../runtime/transport/broker-connections.js";
import { kernelSettleMs, ProviderLife, type ProviderLifeParts } from "../../../runtime/transport/provider-life.js";

const held = {
  hold: {
    path: "/test.Held/Hold",
    requestStream: false,
    responseStream: true,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
};

test("shutting the server with the host's streams open builds their errors without stack frames, and exits once", async () => {
  const server = new Server();
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => (opened = resolve));
  // Like the broker and stdio streams: open until the provider goes.
  server.addService(held, { hold: (_call: ServerWritableStream<Buffer, Buffer>) => opened() });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, p) =>
      error ? reject(error) : resolve(p),
    ),
  );
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const stream = client.makeServerStreamRequest(
    held.hold.path,
    (b: Buffer) => b,
    (b: Buffer) => b,
    Buffer.alloc(0),
    new Metadata(),
  );
  stream.on("error", () => {});
  await open;

  const exits: number[] = [];
  const parts = {
    server,
    core: { shutdown: async () => {} },
    kernel: { close: () => {}, settle: async () => {}, busy: () => false },
    broker: { close: () => {} },
    stdout: { flush: () => {} },
    exit: (code: number) => exits.push(code),
    graceMs: 100,
  } as unknown as ProviderLifeParts;
  const life = new ProviderLife(parts);

  // V8 calls Error.prepareStackTrace with the frames when a stack is first read.
  const framesSeen: number[] = [];
  const original = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  Error.prepareStackTrace = (error, frames) => {
    framesSeen.push(frames.length);
    return original ? original(error, frames) : String(error);
  };
  try {
    assert.equal(await life.stop("shutdown-rpc"), 0);
  } finally {
    Error.prepareStackTrace = original;
    client.close();
  }
  assert.deepEqual(exits, [0]);
  assert.ok(framesSeen.length > 0, "Node built no error for the open stream: the test no longer sees what it guards");
  assert.deepEqual(
    framesSeen.filter((n) => n > 0),
    [],
    "errors built while the server shut carried stack frames (each would parse the source map)",
  );
  assert.equal(Error.stackTraceLimit, limit, "the stack trace limit is restored");
});

test("a stop waits for the kernel's answers to callbacks in flight, then exits before closing the kernel client and server", async () => {
  const steps: string[] = [];
  const parts = {
    server: { unbind: () => {}, forceShutdown: () => steps.push("server closed") },
    core: { shutdown: async () => steps.push("calls ended") },
    kernel: {
      settle: async (timeoutMs: number) => {
        steps.push(`settle ${timeoutMs}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        steps.push("settled");
      },
      busy: () => true,
      close: () => steps.push("kernel closed"),
    },
    broker: { close: () => steps.push("broker closed") },
    stdout: { flush: () => {} },
    exit: () => steps.push("exit"),
    graceMs: 100,
  } as unknown as ProviderLifeParts;
  assert.equal(await new ProviderLife(parts).stop("broker-closed"), 0);
  // The exit comes before the teardown: a process.exit (and the supervisor it tells) does not wait
  // for the closes, which only an exit that returns reaches.
  assert.deepEqual(steps, [
    "calls ended",
    `settle ${kernelSettleMs}`,
    "settled",
    "exit",
    "kernel closed",
    "broker closed",
    "server closed",
  ]);
  assert.ok(kernelSettleMs < 1000, "the wait stays well inside the host's 2 s grace");
});

test("the broker's kernel client settles when its calls in flight do, or at the timeout", async () => {
  // A broker whose kernel address never comes: every call stays in flight until its signal aborts.
  const broker = {
    waitFor: (_id: number, _timeout: unknown, signal?: AbortSignal) =>
      new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")))),
  } as unknown as BrokerConnections;
  const kernel = createBrokerKernelClient(broker);
  let started = performance.now();
  await kernel.settle(5_000);
  assert.ok(performance.now() - started < 1_000, "nothing in flight: settle resolves at once");

  assert.equal(kernel.busy(), false, "nothing in flight: not busy");

  const abort = new AbortController();
  const call = kernel.runSession({} as never, abort.signal).catch(() => "failed");
  assert.equal(kernel.busy(), true, "a callback in flight: busy");
  started = performance.now();
  const settled = kernel.settle(5_000);
  setTimeout(() => abort.abort(), 30);
  await settled;
  assert.ok(performance.now() - started < 2_000, "settle resolved when the call ended, not at its timeout");
  assert.equal(await call, "failed");

  const stuck = new AbortController();
  void kernel.runSession({} as never, stuck.signal).catch(() => {});
  started = performance.now();
  await kernel.settle(40);
  assert.ok(performance.now() - started >= 35, "a call that never ends holds settle only until its timeout");
  stuck.abort();
  kernel.close();
});

test("Shutdown replies with an Empty (no bytes) and starts the stop in the same turn", async () => {
  const implementations = new Map<unknown, Record<string, (...args: unknown[]) => void>>();
  const server = {
    addService: (definition: unknown, implementation: never) => implementations.set(definition, implementation),
  };
  const stops: string[] = [];
  const life = { stop: (trigger: string) => stops.push(trigger), stopping: false, openStreams: new Set() };
  addGoPluginServices(server as unknown as Server, life as unknown as ProviderLife, {} as BrokerConnections);
  const shutdown = implementations.get(goPluginServices.controller)?.shutdown;
  assert.ok(shutdown, "the controller's Shutdown is served");
  const replies: [unknown, Uint8Array][] = [];
  shutdown({}, (error: unknown, reply: Uint8Array) => replies.push([error, reply]));
  // No await before these: a stop begun a loop turn later held every Kill() for that turn.
  assert.deepEqual(stops, ["shutdown-rpc"]);
  assert.equal(replies.length, 1);
  const [error, reply] = replies[0] as [unknown, Uint8Array];
  assert.equal(error, null);
  assert.deepEqual(reply, toBinary(EmptySchema, create(EmptySchema)), "the reply is plugin.Empty's encoding");
});

test("a stop with something to wait for unbinds first; one with nothing to wait for exits without it", async () => {
  const stopWith = async (coreBusy: boolean | undefined, kernelBusy: boolean) => {
    const steps: string[] = [];
    const parts = {
      server: { unbind: () => steps.push("unbind"), forceShutdown: () => steps.push("server closed") },
      core: {
        shutdown: async () => steps.push("calls ended"),
        ...(coreBusy === undefined ? {} : { busy: () => coreBusy }),
      },
      kernel: { settle: async () => {}, busy: () => kernelBusy, close: () => {} },
      broker: { close: () => {} },
      stdout: { flush: () => {} },
      exit: () => steps.push("exit"),
      graceMs: 100,
    } as unknown as ProviderLifeParts;
    const life = new ProviderLife(parts);
    life.listening = { network: "unix", address: "/nowhere", target: "unix:/nowhere", cleanup: () => {} };
    await life.stop("shutdown-rpc");
    return steps;
  };
  assert.deepEqual(await stopWith(false, false), ["calls ended", "exit", "server closed"]);
  assert.deepEqual(await stopWith(true, false), ["unbind", "calls ended", "exit", "server closed"]);
  assert.deepEqual(await stopWith(false, true), ["unbind", "calls ended", "exit", "server closed"]);
  // A core that cannot say is taken to be busy.
  assert.deepEqual(await stopWith(undefined, false), ["unbind", "calls ended", "exit", "server closed"]);
});
