/**
 * The kernel cancelling calls in a burst, through go-plugin v1.8.0 (grpc-go 1.82.1, the kernel's
 * client): 3,000 Invokes cancelled in batches of 100, each batch once all its calls are running.
 * Measured on Node 20.20 (nghttp2 1.61, whose stream-reset limit the provider cannot raise there):
 * the kernel's client never ends the HTTP/2 session, unlike a grpc-js or node:http2 client, which
 * ends it after about 1,000 cancels (that outcome: test/reliability/faults.test.ts). See
 * docs/transport.md, "A burst of stream resets".
 */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { InvokeRequestSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { faultProvider } from "../reliability/support/fault-provider.js";
import type { GoHost } from "./go-host.js";
import { goSkip, hostLabels, scenario, start } from "./host-matrix.js";
import { callContext } from "./scenarios.js";

describe(`${hostLabels.go}: the kernel cancelling calls in a burst`, { skip: goSkip }, () => {
  scenario("go", "3,000 Invokes cancelled in batches of 100: every one ends CANCELLED, Ping answers, the provider runs on", async () => {
    const h = await start("go", faultProvider);
    const go = h.go as GoHost;
    try {
      const call = { id: "burst", toolName: "fault", arguments: { mode: "cooperative" }, callContext: callContext("s-burst") };
      const request = Buffer.from(toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call }))).toString("base64");
      const burst = await go.request({ op: "cancelBurst", request, count: 3000, batch: 100 });
      console.log(
        `# go-plugin host, cancel burst: ${JSON.stringify(burst.codes)}; ping ${String(burst.pingCode ?? "OK")}; provider exited: ${String(burst.exited)}`,
      );
      assert.deepEqual(burst.codes, { Canceled: 3000 }, "every call was cancelled; none failed with the session");
      assert.equal(burst.pingError, undefined, "Ping answers after the burst");
      assert.equal(burst.exited, false, "the provider is still running");
    } finally {
      await h.close();
    }
  });
});
