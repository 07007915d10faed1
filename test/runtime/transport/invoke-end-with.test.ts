/**
 * Invoke's last message and the end of its stream in one write: the ToolService handler holds the
 * terminal event and hands it to node-grpc's endWith (on grpc-js's call: write, then end), and
 * Http2ServerCall.endWith sends headers, the framed message and the trailers with one end(bytes).
 */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { ServerHttp2Stream } from "node:http2";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import type { ServerWritableStream } from "@grpc/grpc-js";
import {
  InvokeRequestSchema,
  InvokeResponseSchema,
  type InvokeRequest,
  type InvokeResponse,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { toolServiceHandlers } from "../../../runtime/transport/tool-service-handlers.js";
import { Http2ServerCall } from "../../../runtime/transport/node-grpc/server-call.js";
import { frameMessage } from "../../../runtime/transport/node-grpc/grpc-framing.js";
import type { InvokeSink, ToolServiceCore } from "../../../runtime/service/calls/tool-service-core.js";

const progress = create(InvokeResponseSchema, { event: { event: { case: "progress", value: { message: "half" } } } });
const result = create(InvokeResponseSchema, {
  event: { event: { case: "result", value: { payload: { text: "done" } } } },
});

/** A core whose Invoke sends a progress event and a result, then resolves. */
const core = {
  invoke: async (_request: InvokeRequest, sink: InvokeSink) => {
    sink.send(progress);
    sink.send(result);
  },
} as unknown as ToolServiceCore;

/** A call that records what reaches it, with or without node-grpc's endWith. */
function recordingCall(withEndWith: boolean) {
  const log: string[] = [];
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const kind = (r: InvokeResponse) => r.event?.event.case ?? "none";
  const call = Object.assign(new EventEmitter(), {
    request: create(InvokeRequestSchema, { call: { id: "1", toolName: "t" } }),
    metadata: { get: () => [] },
    writableNeedDrain: false,
    write: (r: InvokeResponse) => log.push(`write ${kind(r)}`) > 0,
    end: () => {
      log.push("end");
      done();
    },
    ...(withEndWith
      ? {
          endWith: (r: InvokeResponse) => {
            log.push(`endWith ${kind(r)}`);
            done();
          },
        }
      : {}),
  });
  return { call: call as unknown as ServerWritableStream<InvokeRequest, InvokeResponse>, log, finished };
}

test("the terminal event is held and ends the stream with endWith; grpc-js's call gets write then end", async () => {
  const own = recordingCall(true);
  toolServiceHandlers(core).invoke(own.call);
  await own.finished;
  assert.deepEqual(own.log, ["write progress", "endWith result"]);
  const grpcJs = recordingCall(false);
  toolServiceHandlers(core).invoke(grpcJs.call);
  await grpcJs.finished;
  assert.deepEqual(grpcJs.log, ["write progress", "write result", "end"]);
});

test("Http2ServerCall.endWith: headers, then the message and the end in one end(bytes), then OK trailers", () => {
  const log: string[] = [];
  const stream = Object.assign(new EventEmitter(), {
    destroyed: false,
    closed: false,
    respond: (headers: Record<string, unknown>) => log.push(`respond ${Object.keys(headers).join(",")}`),
    write: () => log.push("write"),
    end: (bytes?: Buffer) => {
      log.push(`end ${bytes ? bytes.toString() : "(nothing)"}`);
      stream.emit("wantTrailers");
    },
    sendTrailers: (trailers: Record<string, unknown>) => log.push(`trailers ${JSON.stringify(trailers)}`),
  });
  const call = new Http2ServerCall<unknown, Buffer>(stream as unknown as ServerHttp2Stream, {}, (b) => b, undefined);
  call.endWith(Buffer.from("last"));
  assert.deepEqual(log, [
    "respond :status,content-type",
    `end ${frameMessage(Buffer.from("last")).toString()}`,
    'trailers {"grpc-status":0}',
  ]);
});
