/**
 * The go-plugin transport end to end, through harness-tool/testing's launch() against a provider
 * process around a fake ToolServiceCore (test/runtime/transport/fixtures): what the transport itself
 * must do, whatever the ToolService semantics.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, test } from "node:test";
import { Client, credentials, Metadata, type ClientReadableStream } from "@grpc/grpc-js";
import { launch, kernelEnvironment, ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { goPluginServices } from "../../../runtime/transport/grpc-service-definition.js";
import { create, toBinary } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import { eventually, fileGone, processGone } from "../interop/process-state.js";
import { typeScriptProvider } from "../interop/providers.js";

const fake = typeScriptProvider("fake", "test/runtime/transport/fixtures/fake-core-provider.ts");
const start = (env: { [name: string]: string } = {}) =>
  launch(fake.command, { args: fake.args, cwd: fake.cwd, env, handshakeTimeoutMs: 30_000 });
const ctx = { sessionId: "s-1", turnId: "t-1", workingDirectory: "/tmp" };

describe("a provider on the default unix socket", () => {
  let p: LaunchedProvider;
  after(() => p?.kill());

  test("handshake on a socket file, Ping SERVING, nothing else on stdout", async () => {
    p = await start();
    assert.equal(p.handshake.network, "unix");
    assert.ok(p.handshake.address.startsWith(os.tmpdir()));
    assert.ok(!fileGone(p.handshake.address));
    assert.equal(await p.ping(), 1);
  });

  test("Configure: an RpcStatusError keeps its code and packs its ToolError; anything else is INTERNAL, never UNKNOWN", async () => {
    const rejected = await p.configure({}).catch((e: unknown) => e);
    assert.ok(rejected instanceof ProviderCallError);
    assert.equal(rejected.code, 3);
    assert.equal(rejected.toolError?.message, "root is required");
    assert.deepEqual(rejected.toolError?.details, { field: "root" });
    const crashed = await p.configure({ root: "crash" }).catch((e: unknown) => e);
    assert.ok(crashed instanceof ProviderCallError);
    assert.equal(crashed.code, 13);
    assert.match(crashed.details, /configure crashed/);
    await p.configure({ root: "/" });
  });

  test("console.* and process.stdout.write become stderr lines with their level", async () => {
    await p.invoke({ id: "c", toolName: "console", callContext: ctx }).done;
    await eventually(() => p.stderr.some((e) => e.message === "raw stdout write"), 2000);
    const level = (text: string) => p.stderr.find((e) => e.message.startsWith(text))?.level;
    assert.equal(level("from console.log"), "info");
    assert.equal(level("from console.info"), "info");
    assert.equal(level("from console.debug"), "debug");
    assert.equal(level("from console.warn"), "warn");
    assert.equal(level("from console.error"), "error");
    assert.equal(
      p.stderr.find((e) => e.message.startsWith("from console.error"))?.message,
      "from console.error\nsecond line",
    );
    assert.equal(level("raw stdout write"), "info");
    assert.deepEqual(p.strayStdout, [], "stdout carries the handshake line only");
  });

  test("a handler's stray exception and rejection are logged, and the provider keeps serving", async () => {
    await p.invoke({ id: "t", toolName: "throw-later", callContext: ctx }).done;
    await eventually(() => p.stderr.some((e) => e.message.includes("uncaught exception")), 2000);
    assert.ok(p.stderr.some((e) => e.level === "error" && e.message.includes("unhandled rejection")));
    const echo = await p.invoke({ id: "e", toolName: "echo", arguments: { still: "here" }, callContext: ctx }).done;
    assert.equal(echo.events[0]?.event.case, "result");
  });

  test("Log reaches the recording kernel on broker ID 1 with the call's session id", async () => {
    await p.invoke({
      id: "l",
      toolName: "log",
      arguments: { message: "over the broker" },
      callContext: { ...ctx, sessionId: "session-7" },
    }).done;
    const log = await p.kernel.waitFor("log", (r) => r.entry?.message === "over the broker");
    assert.equal(log.sessionId, "session-7");
  });

  test("GRPCStdio/StreamStdio stays open and sends nothing (console output goes to stderr lines)", async () => {
    const client = new Client(`unix:${p.handshake.address}`, credentials.createInsecure());
    const m = goPluginServices.stdio.streamStdio;
    const stream = client.makeServerStreamRequest(
      m.path,
      m.requestSerialize,
      m.responseDeserialize,
      toBinary(EmptySchema, create(EmptySchema)),
      new Metadata(),
      {},
    ) as ClientReadableStream<Uint8Array>;
    const received: Uint8Array[] = [];
    stream.on("data", (d: Uint8Array) => received.push(d));
    const ended = new Promise<number>((resolve) => {
      stream.on("status", (s: { code: number }) => resolve(s.code));
      stream.on("error", (e: { code: number }) => resolve(e.code));
    });
    console.log("test process output, not the provider's");
    await p.invoke({ id: "c2", toolName: "console", callContext: ctx }).done;
    assert.deepEqual(received, []);
    stream.cancel();
    assert.equal(await ended, 1);
    client.close();
  });

  test("Kill(): graceful, the process and its socket file gone", async () => {
    const { pid } = p;
    const report = await p.kill();
    assert.ok(report.graceful);
    assert.equal(report.exitCode, 0);
    assert.ok(processGone(pid));
    assert.ok(fileGone(p.handshake.address));
  });
});

test("the first write to stderr is an empty one after the handshake: the stop's line does not pay Node's first stream write", async () => {
  const probe = path.join(import.meta.dirname, "fixtures", "first-stderr-write.mjs");
  const entry = fake.args.at(-1) as string;
  const p = await launch(fake.command, {
    args: [...fake.args.slice(0, -1), "--import", pathToFileURL(probe).href, entry],
    cwd: fake.cwd,
    handshakeTimeoutMs: 30_000,
  });
  await p.ping();
  assert.ok((await p.kill()).graceful);
  assert.ok(
    p.stderr.some((e) => e.message === "provider shutting down"),
    "the stop wrote its line",
  );
  const first = p.stderr.find((e) => e.message === "first stderr write");
  assert.equal(first?.fields.first, "", "the first write was the empty one, before the stop's line");
});

test("a call that ignores cancellation does not hold Shutdown past the grace: still a graceful exit", async () => {
  const p = await start({ FAKE_SHUTDOWN_GRACE_MS: "200" });
  const hung = p.invoke({ id: "h", toolName: "hang", arguments: { stubborn: true }, callContext: ctx });
  await p.ping();
  const report = await p.kill();
  // The grace (200 ms) plus the close margin, far from go-plugin's 2 s SIGKILL (loose on purpose).
  assert.ok(report.graceful, `exited by itself in ${report.durationMs} ms`);
  const outcome = await hung.done;
  assert.notEqual(outcome.code, 0, "the stream did not end OK with a fake success");
  assert.ok(fileGone(p.handshake.address));
});

test("an in-flight call is cancelled by Shutdown and the provider exits", async () => {
  const p = await start();
  const hung = p.invoke({ id: "h", toolName: "hang", callContext: ctx });
  await p.ping();
  const report = await p.kill();
  assert.ok(report.graceful);
  const outcome = await hung.done;
  assert.ok(!outcome.events.some((e) => e.event.case === "result"), "no result claimed after the cancel");
});

test("TCP on 127.0.0.1 within PLUGIN_MIN_PORT..PLUGIN_MAX_PORT when asked", async () => {
  const p = await start({ HARNESS_TOOL_PLUGIN_NETWORK: "tcp", PLUGIN_MIN_PORT: "21000", PLUGIN_MAX_PORT: "21400" });
  try {
    assert.equal(p.handshake.network, "tcp");
    const [hostPart, port] = p.handshake.address.split(":");
    assert.equal(hostPart, "127.0.0.1");
    assert.ok(Number(port) >= 21000 && Number(port) <= 21400, p.handshake.address);
    assert.equal((await p.getSchema()).tools.length > 0, true);
    await p.invoke({ id: "l", toolName: "log", arguments: { message: "tcp" }, callContext: ctx }).done;
    await p.kernel.waitFor("log", (r) => r.entry?.message === "tcp");
  } finally {
    assert.ok((await p.kill()).graceful);
  }
});

test("the socket goes under PLUGIN_UNIX_SOCKET_DIR", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ht-sock-"));
  try {
    const p = await start({ PLUGIN_UNIX_SOCKET_DIR: dir });
    assert.equal(path.dirname(p.handshake.address), dir);
    await p.kill();
    assert.ok(fileGone(p.handshake.address));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("without the cookie: one line on stderr explaining, exit 1, nothing on stdout", async () => {
  const env = kernelEnvironment({ PLUGGABLEHARNESS_AGENT_PLUGIN: undefined });
  const child = spawn(fake.command, fake.args, { cwd: fake.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  assert.equal(code, 1);
  assert.equal(stdout, "");
  assert.match(stderr, /^this binary is a plugin; it is started by the kernel/);
  assert.equal(stderr.trimEnd().split("\n").length, 1);
});

test("incompatible protocol versions: launch() fails with the provider's explanation", async () => {
  // The reason in the handshake's place (go-plugin's launch error shows it), and at error level on stderr.
  await assert.rejects(
    start({ PLUGIN_PROTOCOL_VERSIONS: "2" }),
    /unrecognized handshake line .*: harness-tool: the provider cannot start: incompatible plugin protocol versions: the host offers 2.*\n.*"@level":"error","@message":"incompatible plugin protocol versions/s,
  );
});

test("the host going away (broker stream and connection gone, no Shutdown): the provider exits and removes its socket", async () => {
  // An intermediate host process launches the provider and is then SIGKILLed, like a crashed kernel.
  const script = `
    const { launch } = await import("harness-tool/testing");
    const p = await launch(${JSON.stringify(fake.command)}, { args: ${JSON.stringify(fake.args)}, cwd: ${JSON.stringify(fake.cwd)} });
    await p.ping();
    process.stdout.write(JSON.stringify({ pid: p.pid, address: p.handshake.address, kernel: p.kernel.address }) + "\\n");
    setInterval(() => {}, 1000);
  `;
  const host = spawn(process.execPath, [...fake.args.slice(0, 3), "--input-type=module", "-e", script], {
    cwd: fake.cwd,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve) => host.stdout.once("data", (d: Buffer) => resolve(String(d))));
  const { pid, address, kernel } = JSON.parse(line) as { pid: number; address: string; kernel: string };
  host.kill("SIGKILL");
  assert.ok(await eventually(() => processGone(pid), 3000), "the orphaned provider exited");
  assert.ok(fileGone(address), "and removed its socket");
  // The SIGKILLed host could not remove its recording kernel's socket.
  rmSync(kernel, { force: true });
});
