/**
 * The gRPC server on node:http2 (runtime/transport/node-grpc/, the default transport) on its
 * own: grpc-js's client against it for what a gRPC client sees, and a raw node:http2 client for
 * the wire itself (trailers-only answers, grpc-timeout, resets, backpressure, size limits). The
 * providers on it are proven by the interop and kernel tests.
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { Client, credentials, type ServiceError, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { Http2GrpcServer } from "../../../runtime/transport/node-grpc/grpc-http2-server.js";
import { writeBufferBytes } from "../../../runtime/transport/node-grpc/server-call.js";
import { frameMessage, MessageReader, parseGrpcTimeout } from "../../../runtime/transport/node-grpc/grpc-framing.js";
import { rawMethod } from "../../../runtime/transport/grpc-service-definition.js";
import { StatusTrailers } from "../../../runtime/transport/status-trailers.js";
import { transportFromEnv } from "../../../runtime/transport/provider-server.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "node-grpc-"));
const socket = path.join(dir, "s");
const events: string[] = [];
let drained: Promise<boolean> | undefined;
const server = new Http2GrpcServer({ maxReceiveMessageLength: 1000 });
const unary = rawMethod("/t.T/Unary", { requestStream: false, responseStream: false });
const stream = rawMethod("/t.T/Stream", { requestStream: false, responseStream: true });
const bidi = rawMethod("/t.T/Bidi", { requestStream: true, responseStream: true });

type Call = {
  request: Uint8Array;
  write(b: Uint8Array): boolean;
  end(): void;
  on(e: string, f: (...a: unknown[]) => void): void;
  emit(e: string, v: unknown): void;
  writableNeedDrain: boolean;
};
server.addService({ unary, stream, bidi }, {
  unary: (call: Call, callback: (e: unknown, v?: Uint8Array) => void) => {
    const text = Buffer.from(call.request).toString();
    call.on("cancelled", () => events.push(`unary cancelled ${text}`));
    if (text === "hang") return;
    if (text === "later") return void setTimeout(() => callback(null, Buffer.from("echo later")), 100);
    if (text === "fail") {
      const trailers = new StatusTrailers();
      trailers.set("grpc-status-details-bin", Buffer.from([1, 2, 3, 250]));
      callback({ code: 9, details: "not now: 100% sure", metadata: trailers.asMetadata() });
      return;
    }
    callback(null, Buffer.from(`echo ${text}`));
  },
  stream: (call: Call) => {
    const mode = Buffer.from(call.request).toString();
    call.on("cancelled", () => events.push(`stream cancelled ${mode}`));
    if (mode === "flood") {
      // Writes until the stream says false, then reports whether 'drain' came once the client read.
      let writes = 0;
      while (call.write(Buffer.alloc(16 * 1024, 7)) && writes < 10_000) writes++;
      drained = new Promise((resolve) => call.on("drain", () => resolve(true)));
      events.push(`flood stopped after ${writes} writes, needDrain ${call.writableNeedDrain}`);
      return;
    }
    if (mode === "hold") return;
    call.write(Buffer.from("one"));
    call.write(Buffer.from("two"));
    if (mode === "error") call.emit("error", { code: 5, details: "gone" });
    else call.end();
  },
  bidi: (call: Call) => {
    call.on("data", (m) => events.push(`bidi data ${Buffer.from(m as Uint8Array).toString()}`));
    call.on("end", () => {
      events.push("bidi end");
      call.end();
    });
  },
} as unknown as UntypedServiceImplementation);

let client: Client;
before(async () => {
  await server.bind(`unix:${socket}`);
  client = new Client(`unix:${socket}`, credentials.createInsecure());
});
after(() => {
  client.close();
  server.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

const identity = (b: Uint8Array) => Buffer.from(b);
function callUnary(text: string, deadlineMs?: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      "/t.T/Unary",
      identity,
      identity,
      Buffer.from(text),
      deadlineMs === undefined ? {} : { deadline: Date.now() + deadlineMs },
      (error: ServiceError | null, value?: Buffer) => (error ? reject(error) : resolve(value as Buffer)),
    );
  });
}

/** One gRPC message compressed: flag 1, the gzip bytes' length, the gzip bytes. */
function gzipFrame(message: Buffer): Buffer {
  const body = gzipSync(message);
  const prefix = Buffer.alloc(5);
  prefix[0] = 1;
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** A raw HTTP/2 request: the response headers, the DATA bytes and the trailers. */
function raw(
  headers: http2.OutgoingHttpHeaders,
  body: Buffer,
): Promise<{ headers: http2.IncomingHttpHeaders; data: Buffer; trailers: http2.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect("http://localhost", { createConnection: () => net.connect(socket) });
    session.on("error", reject);
    const req = session.request({ ":method": "POST", "content-type": "application/grpc", te: "trailers", ...headers });
    let response: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    const data: Buffer[] = [];
    req.on("response", (h) => (response = h));
    req.on("trailers", (t) => (trailers = t));
    req.on("data", (c: Buffer) => data.push(c));
    req.on("close", () => {
      session.close();
      resolve({ headers: response, data: Buffer.concat(data), trailers });
    });
    req.end(body);
  });
}

test("unary: an answer, and a failure's code, URI-encoded message and binary trailer as grpc-js sends them", async () => {
  assert.equal((await callUnary("hi")).toString(), "echo hi");
  const error = (await callUnary("fail").catch((e: unknown) => e)) as ServiceError;
  assert.equal(error.code, 9);
  assert.equal(error.details, "not now: 100% sure");
  assert.deepEqual([...(error.metadata.get("grpc-status-details-bin")[0] as Buffer)], [1, 2, 3, 250]);
  const wire = await raw({ ":path": "/t.T/Unary" }, frameMessage(Buffer.from("fail")));
  // No message was sent: one trailers-only response, as grpc-js answers a failed unary call.
  assert.equal(wire.headers.date, undefined);
  assert.equal(wire.headers["grpc-status"], "9");
  assert.equal(wire.headers["grpc-message"], "not%20now:%20100%25%20sure");
  assert.equal(wire.headers["grpc-status-details-bin"], Buffer.from([1, 2, 3, 250]).toString("base64"));
  const ok = await raw({ ":path": "/t.T/Unary" }, frameMessage(Buffer.from("x")));
  assert.equal(ok.headers["content-type"], "application/grpc+proto");
  assert.equal(ok.trailers["grpc-status"], "0");
  assert.deepEqual(ok.data, frameMessage(Buffer.from("echo x")));
});

test("an uncompressed request is answered with :status and content-type only (no date), and OK with grpc-status alone", async () => {
  // gRPC's response headers: content-type is required, grpc-encoding and grpc-accept-encoding are
  // optional (absent means identity), and an OK needs no grpc-message (grpc-go's server sends none).
  for (const encoding of [{}, { "grpc-encoding": "identity" }]) {
    const ok = await raw({ ":path": "/t.T/Stream", ...encoding }, frameMessage(Buffer.from("ok")));
    // No `date` either: gRPC has no use for it.
    assert.deepEqual(Object.keys(ok.headers).sort(), [":status", "content-type"]);
    assert.deepEqual(Object.keys(ok.trailers), ["grpc-status"]);
    assert.equal(ok.trailers["grpc-status"], "0");
  }
  // A compressed request is answered as grpc-js answers it: the encodings the reader takes.
  const gzipped = await raw({ ":path": "/t.T/Unary", "grpc-encoding": "gzip" }, gzipFrame(Buffer.from("x")));
  assert.equal(gzipped.headers["grpc-encoding"], "identity");
  assert.equal(gzipped.headers["grpc-accept-encoding"], "identity,deflate,gzip");
  assert.deepEqual(gzipped.data, frameMessage(Buffer.from("echo x")));
});

test("an unknown method is UNIMPLEMENTED, a non-gRPC content type HTTP 415, a bad grpc-timeout INTERNAL", async () => {
  const unknown = await raw({ ":path": "/t.T/Nope" }, frameMessage(Buffer.from("x")));
  assert.equal(unknown.headers["grpc-status"], "12");
  assert.equal(
    decodeURI(String(unknown.headers["grpc-message"])),
    "The server does not implement the method /t.T/Nope",
  );
  const json = await raw({ ":path": "/t.T/Unary", "content-type": "application/json" }, Buffer.from("{}"));
  assert.equal(json.headers[":status"], 415);
  const badTimeout = await raw({ ":path": "/t.T/Unary", "grpc-timeout": "soon" }, frameMessage(Buffer.from("x")));
  assert.equal(badTimeout.headers["grpc-status"], "13");
});

test("grpc-timeout: the call ends DEADLINE_EXCEEDED and the handler sees 'cancelled'", async () => {
  const wire = await raw({ ":path": "/t.T/Unary", "grpc-timeout": "50m" }, frameMessage(Buffer.from("hang")));
  assert.equal(wire.headers["grpc-status"], "4");
  assert.ok(events.includes("unary cancelled hang"));
});

test("grpc-timeout past setTimeout's 24.8-day limit: the call is not ended early", async () => {
  // 30 days as grpc-go writes it, and the grammar's largest: a single setTimeout of either fires at once.
  for (const timeout of ["720H", "2592000S", "99999999H"]) {
    const wire = await raw({ ":path": "/t.T/Unary", "grpc-timeout": timeout }, frameMessage(Buffer.from("later")));
    assert.equal(wire.headers["grpc-status"] ?? wire.trailers["grpc-status"], "0", timeout);
  }
});

test("grpc-timeout: calls of many distinct microsecond deadlines each end DEADLINE_EXCEEDED, none early", async () => {
  const session = http2.connect("http://localhost", { createConnection: () => net.connect(socket) });
  // As a client sends what is left of its deadline: microseconds, a little different on each call.
  const calls = Array.from({ length: 300 }, (_, i) => {
    const timeoutUs = 300_000 + i * 1_337;
    const sent = performance.now();
    const req = session.request({
      ":method": "POST",
      ":path": "/t.T/Unary",
      "content-type": "application/grpc",
      te: "trailers",
      "grpc-timeout": `${timeoutUs}u`,
    });
    req.end(frameMessage(Buffer.from("hang")));
    req.resume();
    return new Promise<{ status: unknown; early: number }>((resolve) => {
      let status: unknown;
      req.on("response", (h) => (status = h["grpc-status"]));
      req.on("trailers", (t) => (status = t["grpc-status"]));
      req.on("close", () => resolve({ status, early: timeoutUs / 1000 - (performance.now() - sent) }));
    });
  });
  const ended = await Promise.all(calls);
  session.close();
  for (const [i, call] of ended.entries()) {
    assert.equal(call.status, "4", `call ${i}`);
    // Node's timers count whole milliseconds of the event loop's clock: within 1 ms.
    assert.ok(call.early <= 1, `call ${i} ended ${call.early} ms before its deadline`);
  }
});

test("a message over the receive limit is RESOURCE_EXHAUSTED; two on a unary call UNIMPLEMENTED", async () => {
  const big = await raw({ ":path": "/t.T/Unary" }, frameMessage(Buffer.alloc(1001)));
  assert.equal(big.headers["grpc-status"], "8");
  const two = Buffer.concat([frameMessage(Buffer.from("a")), frameMessage(Buffer.from("b"))]);
  assert.equal((await raw({ ":path": "/t.T/Unary" }, two)).headers["grpc-status"], "12");
});

test("server streaming: messages then OK trailers; an emitted error becomes the trailers' status", async () => {
  const ok = await raw({ ":path": "/t.T/Stream" }, frameMessage(Buffer.from("ok")));
  assert.deepEqual(ok.data, Buffer.concat([frameMessage(Buffer.from("one")), frameMessage(Buffer.from("two"))]));
  assert.equal(ok.trailers["grpc-status"], "0");
  const failed = await raw({ ":path": "/t.T/Stream" }, frameMessage(Buffer.from("error")));
  assert.equal(failed.trailers["grpc-status"], "5");
  assert.equal(failed.trailers["grpc-message"], "gone");
});

test("a stream the client resets (RST_STREAM) is the handler's 'cancelled'", async () => {
  const session = http2.connect("http://localhost", { createConnection: () => net.connect(socket) });
  const req = session.request({ ":method": "POST", ":path": "/t.T/Stream", "content-type": "application/grpc" });
  req.end(frameMessage(Buffer.from("hold")));
  await new Promise((resolve) => setTimeout(resolve, 100));
  req.close(http2.constants.NGHTTP2_CANCEL);
  await new Promise((resolve) => setTimeout(resolve, 100));
  session.close();
  assert.ok(events.includes("stream cancelled hold"));
});

test("backpressure: write() says false once 1 MiB waits for a client that does not read, and 'drain' comes once it does", async () => {
  const session = http2.connect("http://localhost", { createConnection: () => net.connect(socket) });
  const req = session.request({ ":method": "POST", ":path": "/t.T/Stream", "content-type": "application/grpc" });
  req.pause();
  req.end(frameMessage(Buffer.from("flood")));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const line = events.find((e) => e.startsWith("flood stopped"));
  assert.match(line ?? "", /needDrain true/);
  const writes = Number(/after (\d+)/.exec(line ?? "")?.[1]);
  assert.ok(writes < 10_000, "write() said false before the cap");
  // Not at node:http2's own 64 KiB mark: a call holds writeBufferBytes (grpc-js's 16 chunks) first.
  assert.ok(writes * 16 * 1024 >= writeBufferBytes - 16 * 1024, `${writes} writes of 16 KiB before false`);
  req.on("data", () => {});
  req.resume();
  assert.equal(await drained, true);
  req.close(http2.constants.NGHTTP2_CANCEL);
  session.close();
});

test("bidi streaming: each message is 'data', the half-close 'end'", async () => {
  const body = Buffer.concat([frameMessage(Buffer.from("a")), frameMessage(Buffer.from("b"))]);
  const wire = await raw({ ":path": "/t.T/Bidi" }, body);
  assert.equal(wire.headers["grpc-status"] ?? wire.trailers["grpc-status"], "0");
  assert.deepEqual(
    events.filter((e) => e.startsWith("bidi")),
    ["bidi data a", "bidi data b", "bidi end"],
  );
});

test("the reader yields the same messages however DATA is cut", () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 6 }),
      fc.array(fc.nat(60), { maxLength: 8 }),
      (messages, cuts) => {
        const wire = Buffer.concat(messages.map((m) => frameMessage(m)));
        const reader = new MessageReader(-1);
        const out: Buffer[] = [];
        let at = 0;
        for (const cut of [...cuts, wire.length]) {
          const end = Math.min(wire.length, at + cut);
          out.push(...reader.push(wire.subarray(at, end)));
          at = end;
        }
        out.push(...reader.push(wire.subarray(at)));
        assert.deepEqual(
          out.map((b) => [...b]),
          messages.map((m) => [...m]),
        );
      },
    ),
  );
  assert.equal(parseGrpcTimeout("1500m"), 1500);
  assert.equal(parseGrpcTimeout("2S"), 2000);
  assert.equal(parseGrpcTimeout("123456789S"), undefined);
});

test("grpc-timeout read by hand agrees with its grammar (1-8 digits, a unit) on any text", () => {
  const units: { [unit: string]: number } = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };
  const byGrammar = (value: string): number | undefined => {
    const match = /^(\d{1,8})\s*([HMSmun])$/.exec(value.trim());
    return match ? Number(match[1]) * (units[match[2] as string] as number) : undefined;
  };
  const piece = fc.oneof(
    fc.stringMatching(/^\d{0,10}$/),
    fc.constantFrom("H", "M", "S", "m", "u", "n", "x", " ", "\t", "\u00a0", "\u2000", "-", "+", ".", "e", "1", "0", ""),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 4 }), (pieces) => {
      const value = pieces.join("");
      assert.equal(parseGrpcTimeout(value), byGrammar(value), JSON.stringify(value));
    }),
    { numRuns: 5000 },
  );
  for (const value of ["29999873u", "30S", " 5m ", "5 m", "99999999H", "0n", "", "m", "1", "-1m", "1.5m", "１m"])
    assert.equal(parseGrpcTimeout(value), byGrammar(value), JSON.stringify(value));
});

test("HARNESS_TOOL_TRANSPORT: unset is node:http2, grpc-js is grpc-js's server, anything else a one-line error", () => {
  assert.deepEqual(transportFromEnv({}), { ok: true, value: "http2" });
  assert.deepEqual(transportFromEnv({ HARNESS_TOOL_TRANSPORT: "" }), { ok: true, value: "http2" });
  assert.deepEqual(transportFromEnv({ HARNESS_TOOL_TRANSPORT: "http2" }), { ok: true, value: "http2" });
  assert.deepEqual(transportFromEnv({ HARNESS_TOOL_TRANSPORT: "grpc-js" }), { ok: true, value: "grpc-js" });
  const bad = transportFromEnv({ HARNESS_TOOL_TRANSPORT: "quic" });
  assert.equal(bad.ok, false);
  assert.match(
    (bad as { message: string }).message,
    /HARNESS_TOOL_TRANSPORT=quic is not a transport \(set it to http2 or grpc-js, or unset it for http2\)$/,
  );
});
