// A collector that accepts the connection and never answers must not keep a provider past
// go-plugin's grace: the flush on shutdown is bounded, and the provider exits gracefully.
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { launch } from "../../../runtime/testing/index.js";
import { sampleProvider } from "../interop/providers.js";

test("kill() is graceful while the collector hangs on the final export", async () => {
  const sockets = new Set<Socket>();
  let requests = 0;
  const collector = createServer((socket) => {
    sockets.add(socket);
    socket.once("data", () => requests++);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as AddressInfo;
  try {
    const p = await launch(sampleProvider.command, {
      args: sampleProvider.args,
      cwd: sampleProvider.cwd,
      env: { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces` },
      handshakeTimeoutMs: 30_000,
    });
    await p.configure({ root: process.cwd() });
    const call = await p.invoke({
      id: "hang-1",
      toolName: "echo",
      arguments: { text: "a" },
      callContext: { workingDirectory: process.cwd() },
    }).done;
    assert.equal(call.events.at(-1)?.event.case, "result");
    const report = await p.kill();
    assert.equal(
      report.graceful,
      true,
      `the provider was SIGKILLed; stderr: ${p.stderr.map((e) => e.raw).join(" | ")}`,
    );
    assert.equal(report.exitCode, 0);
    assert.ok(requests > 0, "the provider never tried to export");
  } finally {
    for (const socket of sockets) socket.destroy();
    collector.close();
  }
});
