/**
 * What docs/transport.md says of HARNESS_TOOL_TRANSPORT=grpc-js: grpc-js's server reads a
 * grpc-timeout as a 32-bit integer of milliseconds, so one past 24.8 days ends the call at once
 * (DEADLINE_EXCEEDED), where the default transport waits it out (node-grpc-server.test.ts). When
 * grpc-js changes this, this test fails and the doc's sentence goes.
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Server, ServerCredentials, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { rawMethod } from "../../../runtime/transport/grpc-service-definition.js";
import { frameMessage } from "../../../runtime/transport/node-grpc/grpc-framing.js";

test("grpc-js's server ends a call whose grpc-timeout is 30 days at once", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "grpc-js-deadline-"));
  const socket = path.join(dir, "s");
  const server = new Server();
  server.addService({ unary: rawMethod("/t.T/Unary", { requestStream: false, responseStream: false }) }, {
    unary: (_call: unknown, callback: (e: unknown, v?: Uint8Array) => void) =>
      void setTimeout(() => callback(null, Buffer.from("late")), 200),
  } as unknown as UntypedServiceImplementation);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix:${socket}`, ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())),
  );
  try {
    const session = http2.connect("http://localhost", { createConnection: () => net.connect(socket) });
    const req = session.request({
      ":method": "POST",
      ":path": "/t.T/Unary",
      "content-type": "application/grpc",
      te: "trailers",
      "grpc-timeout": "720H",
    });
    req.end(frameMessage(Buffer.from("x")));
    req.resume();
    const status = await new Promise<unknown>((resolve) => {
      let seen: unknown;
      req.on("response", (h) => (seen = h["grpc-status"] ?? seen));
      req.on("trailers", (t) => (seen = t["grpc-status"]));
      req.on("close", () => resolve(seen));
    });
    session.close();
    // DEADLINE_EXCEEDED: only the deadline ends it so; a 30-day one read right would let the answer through.
    assert.equal(status, "4");
  } finally {
    server.forceShutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});
