/**
 * The broker stream (plugin.GRPCBroker/StartStream) is the host's, opened once per process: a
 * second one, whatever it sends, is refused with ALREADY_EXISTS and a warning, and the provider
 * keeps serving with the kernel's callbacks where the host announced them
 * (docs/transport.md#what-the-provider-does-in-order).
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { Metadata, type ClientDuplexStream } from "@grpc/grpc-js";
import { launch, type LaunchedProvider } from "harness-tool/testing";
import { ToolService } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { create, toBinary } from "@bufbuild/protobuf";
import { ConnInfoSchema } from "harness-tool/generated/plugin/grpc_broker_pb.js";
import { goPluginServices } from "../../../runtime/transport/grpc-service-definition.js";
import { grpcTarget, ServiceClient } from "../../../runtime/transport/service-client.js";
import type { GoHost } from "../interop/go-host.js";
import { goSkip, hostLabels, scenario, start } from "../interop/host-matrix.js";
import { eventually, processGone } from "../interop/process-state.js";
import { typeScriptProvider } from "../interop/providers.js";

const fake = typeScriptProvider("fake", "test/runtime/transport/fixtures/fake-core-provider.ts");
const ctx = { sessionId: "s-1", turnId: "t-1", workingDirectory: "/tmp" };
/** What the second stream sends: bytes that are no ConnInfo, then a ConnInfo forging broker ID 1. */
const garbage = [
  Uint8Array.of(0xff, 0xff, 0xff, 0x0f),
  toBinary(
    ConnInfoSchema,
    create(ConnInfoSchema, { serviceId: 1, network: "unix", address: "/nonexistent/broker.sock" }),
  ),
];

describe(`${hostLabels.typescript}: a second broker stream`, () => {
  let p: LaunchedProvider;
  after(() => p?.kill());

  test("with garbage and a forged ConnInfo for ID 1: refused (ALREADY_EXISTS, a warning), the provider serves on, callbacks still reach the host", async () => {
    p = await launch(fake.command, { args: fake.args, cwd: fake.cwd, handshakeTimeoutMs: 30_000 });
    const client = new ServiceClient(ToolService, grpcTarget(p.handshake.network, p.handshake.address));
    try {
      const m = goPluginServices.broker.startStream;
      const second = client.raw.makeBidiStreamRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        new Metadata(),
      ) as ClientDuplexStream<Uint8Array, Uint8Array>;
      const status = new Promise<{ code: number; details: string }>((resolve) => {
        second.on("status", (s: { code: number; details: string }) => resolve(s));
        second.on("error", () => {});
      });
      second.on("data", () => {});
      for (const message of garbage) second.write(message);
      second.end();
      const { code, details } = await status;
      assert.equal(code, 6, `ALREADY_EXISTS (got ${code} ${details})`);
      assert.match(details, /broker stream is already open/);
      assert.ok(
        await eventually(
          () => p.stderr.some((e) => e.level === "warn" && /refused a second broker stream/.test(e.message)),
          2000,
        ),
        "the refusal is logged",
      );

      await new Promise((resolve) => setTimeout(resolve, 600)); // past the provider's parent poll and any shutdown's start
      assert.equal(await p.ping(), 1, "Ping: SERVING");
      assert.ok(!processGone(p.pid), "the provider is still running");
      assert.equal(
        p.stderr.find((e) => e.message === "provider shutting down"),
        undefined,
        "no shutdown began",
      );
      await p.invoke({
        id: "l",
        toolName: "log",
        arguments: { message: "still over the host's broker" },
        callContext: ctx,
      }).done;
      await p.kernel.waitFor("log", (r) => r.entry?.message === "still over the host's broker");
    } finally {
      client.close();
    }
    const report = await p.kill();
    assert.ok(report.graceful, "Kill() still ends it gracefully");
  });
});

describe(`${hostLabels.go}: a second broker stream on go-plugin's own connection`, { skip: goSkip }, () => {
  scenario(
    "go",
    "with garbage and a forged ConnInfo for ID 1: refused, the provider serves on, the kernel's callbacks still reach go-plugin's broker",
    async () => {
      const h = await start("go", fake);
      const go = h.go as GoHost;
      try {
        // go-plugin opens its broker stream from a goroutine after Dispense: a callback that
        // reaches the host's broker proves its stream is the first, so the one below is the second.
        await h.host.invoke({
          id: "b",
          toolName: "log",
          arguments: { message: "over go-plugin's broker first" },
          callContext: ctx,
        });
        assert.ok(
          (await h.host.callbackCalls()).log.some((r) => r.entry?.message === "over go-plugin's broker first"),
          "the host's broker stream is open before the second one",
        );
        const refused = await go.request({
          op: "secondBrokerStream",
          messages: garbage.map((m) => Buffer.from(m).toString("base64")),
        });
        assert.equal(refused.code, "AlreadyExists", `refused: ${JSON.stringify(refused)}`);
        await new Promise((resolve) => setTimeout(resolve, 600));
        await h.host.ping();
        const logs = await h.host.hostLogs();
        assert.ok(
          logs.some((l) => l.level === "warn" && /refused a second broker stream/.test(l.message)),
          "go-plugin logged the refusal at warn",
        );
        assert.equal(
          logs.find((l) => l.message === "provider shutting down"),
          undefined,
          "no shutdown began",
        );
        await h.host.invoke({
          id: "l",
          toolName: "log",
          arguments: { message: "still over go-plugin's broker" },
          callContext: ctx,
        });
        const calls = await h.host.callbackCalls();
        assert.ok(
          calls.log.some((r) => r.entry?.message === "still over go-plugin's broker"),
          "Log reached the host's broker",
        );
        assert.ok((await h.host.kill()).graceful, "Kill() still ends it gracefully");
      } finally {
        await h.close();
      }
    },
  );
});
