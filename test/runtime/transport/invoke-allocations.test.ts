/**
 * What a trivial Invoke costs the provider beyond its handler: no AbortController when the handler
 * never reads its signal (one per call was a measurable share of a call's CPU, bench/RESULTS.md,
 * Invoke), and the handler's ctx.signal still a real AbortSignal, aborted when the kernel cancels;
 * no grpc-js channelz bookkeeping.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Metadata, Server, type ServerWritableStream } from "@grpc/grpc-js";
import {
  InvokeRequestSchema,
  type InvokeRequest,
  type InvokeResponse,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { defineProvider, defineTool } from "harness-tool";
import { createToolService } from "harness-tool/service";
import { providerServerOptions } from "../../../runtime/transport/serve-go-plugin.js";
import { toolServiceHandlers } from "../../../runtime/transport/tool-service-handlers.js";

const text = { type: "object", properties: { text: { type: "string" } }, required: ["text"] } as const;
const echo = defineTool<{ text: string }, { text: string }>()({
  name: "echo",
  kind: "data_source",
  risk: "read_only",
  description: "Returns its input.",
  inputSchema: text,
  outputSchema: text,
  concurrency: { safe: true },
  idempotent: true,
  defaultTimeoutMs: 10_000,
});
const waits = defineTool<{ text: string }, { text: string }>()({
  name: "waits",
  kind: "data_source",
  risk: "read_only",
  description: "Waits for its signal.",
  inputSchema: text,
  outputSchema: text,
  concurrency: { safe: true },
  idempotent: true,
});

let signalSeen: AbortSignal | undefined;
const provider = defineProvider(
  { name: "alloc", version: "0.0.1", source: "github.com/acme/alloc", tools: { echo, waits } },
  {
    echo: async (input) => ({ text: input.text }),
    waits: (input, ctx) =>
      new Promise((resolve) => {
        signalSeen = ctx.signal;
        ctx.signal.addEventListener("abort", () => resolve({ text: input.text }));
      }),
  },
);

/** A grpc-js server stream as the handlers see it: the request, write/end, the events. */
function fakeCall(toolName: string): {
  call: ServerWritableStream<InvokeRequest, InvokeResponse>;
  ended: Promise<InvokeResponse[]>;
  emitter: EventEmitter;
} {
  const emitter = new EventEmitter();
  const written: InvokeResponse[] = [];
  let end: (events: InvokeResponse[]) => void = () => {};
  const ended = new Promise<InvokeResponse[]>((resolve) => (end = resolve));
  const call = Object.assign(emitter, {
    request: create(InvokeRequestSchema, { call: { id: "1", toolName, arguments: { text: "hi" } } }),
    metadata: new Metadata(),
    writableNeedDrain: false,
    write: (response: InvokeResponse) => {
      written.push(response);
      return true;
    },
    end: () => end(written),
  });
  return { call: call as unknown as ServerWritableStream<InvokeRequest, InvokeResponse>, ended, emitter };
}

test("an Invoke whose handler never reads its signal allocates no AbortController; one that does gets a real, aborted signal", async () => {
  const handlers = toolServiceHandlers(createToolService(provider));
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    const { call, ended } = fakeCall("echo");
    (handlers.invoke as (c: typeof call) => void)(call);
    const events = await ended;
    assert.deepEqual(
      events.map((e) => e.event?.event.case),
      ["result"],
    );
    assert.equal(made, 0, "AbortControllers made for a call that never read its signal");

    const waiting = fakeCall("waits");
    (handlers.invoke as (c: typeof waiting.call) => void)(waiting.call);
    while (signalSeen === undefined) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(signalSeen instanceof AbortSignal, "ctx.signal is a real AbortSignal");
    assert.equal(signalSeen.aborted, false);
    waiting.emitter.emit("cancelled");
    assert.equal(signalSeen.aborted, true, "the kernel's cancellation aborts the handler's signal");
  } finally {
    globalThis.AbortController = Original;
  }
});

test("the provider's grpc-js server keeps no channelz bookkeeping per call", () => {
  const server = new Server(providerServerOptions);
  assert.equal((server as unknown as { channelzEnabled: boolean }).channelzEnabled, false);
  assert.equal(providerServerOptions["grpc.max_receive_message_length"], -1, "no limit on what the kernel sends");
});

test("a non-streaming call sends its one terminal event without an outbox: one listener on the stream's cancellation, not two", async () => {
  const service = createToolService(provider);
  let listeners = 0;
  const events: InvokeResponse[] = [];
  const cancelled = {
    aborted: false,
    addEventListener: () => {
      listeners++;
    },
    removeEventListener: () => {},
  };
  await service.invoke(
    create(InvokeRequestSchema, { call: { id: "1", toolName: "echo", arguments: { text: "hi" } } }),
    {
      send: (response) => {
        events.push(response);
      },
      cancelled,
    },
  );
  assert.deepEqual(
    events.map((e) => e.event?.event.case),
    ["result"],
  );
  assert.equal(
    listeners,
    1,
    "listeners on the cancellation of a non-streaming call (the call's own; an outbox would add one)",
  );
});
