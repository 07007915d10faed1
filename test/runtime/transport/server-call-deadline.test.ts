/**
 * The transport's deadline past setTimeout's limit (runtime/transport/node-grpc/server-call.ts):
 * a grpc-timeout longer than 2^31 − 1 ms waits in steps and ends the call DEADLINE_EXCEEDED when
 * the whole of it has passed, not at the first step. Mocked timers over a stand-in stream; the
 * wire test (node-grpc-server.test.ts) proves such a call is not ended early.
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerHttp2Stream } from "node:http2";
import { mock, test } from "node:test";
import { Http2ServerCall, longestTimerMs } from "../../../runtime/transport/node-grpc/server-call.js";

/** What the call uses of its stream: respond() recorded, never destroyed. */
function standInStream(): { stream: ServerHttp2Stream; responses: Record<string, unknown>[] } {
  const responses: Record<string, unknown>[] = [];
  const stream = Object.assign(new EventEmitter(), {
    destroyed: false,
    closed: false,
    respond: (headers: Record<string, unknown>) => void responses.push(headers),
  });
  return { stream: stream as unknown as ServerHttp2Stream, responses };
}

test("a deadline of 60 days ends the call after 60 days, not after the first 24.8-day step", () => {
  mock.timers.enable({ apis: ["setTimeout", "Date"] });
  try {
    const days = 86_400_000;
    const { stream, responses } = standInStream();
    const call = new Http2ServerCall(stream, {}, () => Buffer.alloc(0), 60 * days);
    let cancelled = false;
    call.on("cancelled", () => (cancelled = true));
    mock.timers.tick(longestTimerMs);
    mock.timers.tick(longestTimerMs);
    assert.equal(cancelled, false, "ended at a step");
    mock.timers.tick(60 * days - 2 * longestTimerMs - 1);
    assert.equal(cancelled, false, "ended a millisecond early");
    mock.timers.tick(1);
    assert.equal(cancelled, true);
    assert.equal(responses[0]?.["grpc-status"], 4);
    assert.equal(call.getDeadline(), 60 * days);
  } finally {
    mock.timers.reset();
  }
});
