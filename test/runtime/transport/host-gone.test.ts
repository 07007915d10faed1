/**
 * The provider outliving its host is never an option: the parent-pid backstop (the host died but
 * something still holds the connection open) and a closed stderr pipe (EPIPE) both end in an
 * orderly exit that removes the socket file.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Metadata, type ClientDuplexStream } from "@grpc/grpc-js";
import { InvokeRequestSchema, ToolService } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { kernelEnvironment, parseHandshakeLine } from "harness-tool/testing";
import { goPluginServices } from "../../../runtime/transport/grpc-service-definition.js";
import { grpcTarget, ServiceClient } from "../../../runtime/transport/service-client.js";
import { eventually, fileGone, processGone } from "../interop/process-state.js";
import { typeScriptProvider } from "../interop/providers.js";

const fake = typeScriptProvider("fake", "test/runtime/transport/fixtures/fake-core-provider.ts");

/** Opens the broker stream the way the host does, and keeps it open. */
function holdBroker(client: ServiceClient<typeof ToolService>): ClientDuplexStream<Uint8Array, Uint8Array> {
  const m = goPluginServices.broker.startStream;
  const stream = client.raw.makeBidiStreamRequest(
    m.path,
    m.requestSerialize,
    m.responseDeserialize,
    new Metadata(),
  ) as ClientDuplexStream<Uint8Array, Uint8Array>;
  stream.on("error", () => {});
  return stream;
}

test("the parent dies while the connection stays open: the parent-pid poll ends the provider", async () => {
  // A middle process spawns the provider, relays its handshake line and its pid, then idles; this
  // test holds the gRPC connection and the broker stream, so only the ppid change can tell.
  const script = `
    import { spawn } from "node:child_process";
    const child = spawn(${JSON.stringify(fake.command)}, ${JSON.stringify(fake.args)}, { cwd: ${JSON.stringify(fake.cwd)}, env: ${JSON.stringify(kernelEnvironment())}, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.once("data", (d) => process.stdout.write(JSON.stringify({ pid: child.pid, line: String(d).split("\\n")[0] }) + "\\n"));
    setInterval(() => {}, 1000);
  `;
  const middle = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const relayed = await new Promise<string>((resolve) =>
    createInterface({ input: middle.stdout }).once("line", resolve),
  );
  const { pid, line } = JSON.parse(relayed) as { pid: number; line: string };
  const handshake = parseHandshakeLine(line, [1]);
  const client = new ServiceClient(ToolService, grpcTarget(handshake.network, handshake.address));
  const broker = holdBroker(client);
  try {
    await client.unary(ToolService.method.getSchema, create(ToolService.method.getSchema.input));
    middle.kill("SIGKILL");
    assert.ok(await eventually(() => processGone(pid), 3000), "the provider noticed its parent was gone");
    assert.ok(fileGone(handshake.address), "and removed its socket");
  } finally {
    broker.cancel();
    client.close();
    if (!processGone(pid)) process.kill(pid, "SIGKILL");
  }
});

test("stderr closed under it (EPIPE): no crash, an orderly exit with the socket removed", async () => {
  const child = spawn(fake.command, fake.args, {
    cwd: fake.cwd,
    env: kernelEnvironment(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
  const handshake = parseHandshakeLine(line, [1]);
  const client = new ServiceClient(ToolService, grpcTarget(handshake.network, handshake.address));
  const broker = holdBroker(client);
  try {
    child.stderr.destroy();
    // console.* now writes into a pipe nobody reads: EPIPE.
    const stream = client.serverStream(
      ToolService.method.invoke,
      create(InvokeRequestSchema, { call: { id: "c", toolName: "console", callContext: { sessionId: "s" } } }),
    );
    stream.on("data", () => {});
    stream.on("error", () => {});
    const code = await Promise.race([
      exited,
      new Promise<"running">((resolve) => setTimeout(() => resolve("running"), 3000)),
    ]);
    assert.equal(code, 0, "exited on its own, without an uncaught EPIPE");
    assert.ok(fileGone(handshake.address));
  } finally {
    broker.cancel();
    client.close();
    child.kill("SIGKILL");
  }
});
