/**
 * The host cancelling calls in a burst (docs/transport.md, "A burst of stream resets"): 3,000
 * Invokes cancelled in batches of 100, each batch once all its calls are running, through
 * harness-tool/testing (grpc-js over node:http2, as the CLI and `inspect`) and through go-plugin
 * v1.8.0 (grpc-go 1.82.1, the kernel's client). nghttp2 (Node 20.20: 1.61) sends GOAWAY(INTERNAL_ERROR)
 * once 1,000 resets (refilled at 33/s) are spent on one connection, whichever the client; grpc-go
 * drains such a connection, node:http2 destroys it and the broker stream on it, so before the
 * provider retired its connections itself a grpc-js host ended it after 1,100 cancels. Now every
 * call ends CANCELLED through all three (AutoMTLS too), the provider retiring each host connection
 * at 500 resets.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { InvokeRequestSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { callContext, faultProvider, launchFaultProvider, terminals } from "../reliability/support/fault-provider.js";
import type { GoHost } from "./go-host.js";
import { goSkip, hostLabels, scenario, start } from "./host-matrix.js";
import { processGone } from "./process-state.js";
import { callContext as kernelCallContext } from "./scenarios.js";

const burst = { count: 3000, batch: 100 } as const;
const retiredLine = /^a host connection retired before nghttp2's stream-reset limit/;

describe(`${hostLabels.typescript}: the host cancelling calls in a burst`, () => {
  test(`${burst.count.toLocaleString("en")} Invokes cancelled in batches of ${burst.batch}: every one ends CANCELLED, Ping answers, a following call succeeds`, async () => {
    const p = await launchFaultProvider();
    try {
      const codes = new Map<number, number>();
      for (let sent = 0; sent < burst.count && (codes.get(1) ?? 0) === sent; sent += burst.batch) {
        const calls = Array.from({ length: burst.batch }, (_, i) =>
          p.invoke({
            id: `burst-${sent + i}`,
            toolName: "fault",
            arguments: { mode: "cooperative" },
            callContext: callContext(),
          }),
        );
        await Promise.all(calls.map((c) => c.waitForEvents(1)));
        for (const c of calls) c.cancel();
        for (const outcome of await Promise.all(calls.map((c) => c.done))) {
          assert.deepEqual(terminals(outcome.events), [], "no terminal event after a cancel");
          codes.set(outcome.code, (codes.get(outcome.code) ?? 0) + 1);
        }
      }
      const retired = p.stderr.filter((e) => retiredLine.test(e.message));
      console.log(
        `# typescript host, cancel burst: codes ${JSON.stringify(Object.fromEntries(codes))}; connections retired: ${retired.length}`,
      );
      assert.deepEqual(
        Object.fromEntries(codes),
        { 1: burst.count },
        "every call CANCELLED; none failed with its connection",
      );
      assert.equal(await p.ping(), 1, "Ping: SERVING after the burst");
      const echo = await p.invoke({
        id: "after",
        toolName: "echo",
        arguments: { text: "x" },
        callContext: callContext(),
      }).done;
      assert.equal(echo.code, 0, `a following call succeeds (got ${echo.code} ${echo.details})`);
      assert.ok(!processGone(p.pid), "the provider is still running");
      // At least one: a slow machine spreads the burst, and nghttp2's bucket refills meanwhile.
      assert.ok(retired.length >= 1, `the provider retired its connections on the way (${retired.length})`);
      for (const line of retired)
        assert.ok(Number(line.fields.cancelledStreams) >= 500, `not before 500 resets: ${JSON.stringify(line.fields)}`);
      assert.ok(
        (await p.kill()).graceful,
        "Kill() ends it gracefully, the broker stream still on the first connection",
      );
    } finally {
      await p.kill();
    }
  });
});

for (const id of ["go", "go-automtls"] as const) {
  describe(`${hostLabels[id]}: the kernel cancelling calls in a burst`, { skip: goSkip }, () => {
    scenario(
      id,
      `${burst.count.toLocaleString("en")} Invokes cancelled in batches of ${burst.batch}: every one ends CANCELLED, Ping answers, the provider runs on`,
      async () => {
        const h = await start(id, faultProvider);
        const go = h.go as GoHost;
        try {
          const call = {
            id: "burst",
            toolName: "fault",
            arguments: { mode: "cooperative" },
            callContext: kernelCallContext("s-burst"),
          };
          const request = Buffer.from(toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call }))).toString(
            "base64",
          );
          const outcome = await go.request({ op: "cancelBurst", request, count: burst.count, batch: burst.batch });
          const retired = (await go.logEntries()).filter((e) => retiredLine.test(e.message));
          console.log(
            `# ${hostLabels[id]}, cancel burst: ${JSON.stringify(outcome.codes)}; ping ${String(outcome.pingCode ?? "OK")}; provider exited: ${String(outcome.exited)}; connections retired: ${retired.length}`,
          );
          assert.deepEqual(
            outcome.codes,
            { Canceled: burst.count },
            "every call was cancelled; none failed with its connection",
          );
          assert.equal(outcome.pingError, undefined, "Ping answers after the burst");
          assert.equal(outcome.exited, false, "the provider is still running");
          assert.ok(
            retired.length >= 1,
            `the provider retired the kernel's connections before nghttp2 did (${retired.length})`,
          );
        } finally {
          await h.close();
        }
      },
    );
  });
}
