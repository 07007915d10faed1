/**
 * serve(): a provider that breaks an invariant never reaches the handshake; importing the package
 * for defineTool does not load gRPC (start-up stays lean for code that never serves).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { launch, parseHostLogLine } from "harness-tool/testing";
import { eventually, processGone } from "../interop/process-state.js";
import { typeScriptProvider } from "../interop/providers.js";

test("a provider breaking an invariant: no handshake; the reason in its place and one error line naming the tool and the rule", async () => {
  const broken = typeScriptProvider("broken", "test/runtime/transport/fixtures/broken-provider.ts");
  const error: unknown = await launch(broken.command, {
    args: broken.args,
    cwd: broken.cwd,
    handshakeTimeoutMs: 30_000,
  }).catch((e: unknown) => e);
  assert.ok(error instanceof Error);
  assert.match(
    error.message,
    /unrecognized handshake line .*: harness-tool: the provider cannot start: provider "broken" cannot be served: same: tool name "same"/,
  );
  const line =
    error.message
      .split("\n")
      .find((l) => l.trim().startsWith("{") && l.includes("cannot be served"))
      ?.trim() ?? "";
  const entry = parseHostLogLine(line);
  assert.equal(entry.level, "error", "the host logs it as an error");
  assert.match(entry.message, /provider "broken" cannot be served/);
  assert.match(entry.message, /same: .*\[name-unique\]/);
});

test("importing harness-tool does not load @grpc/grpc-js; serve() loads it when called", () => {
  const sample = typeScriptProvider("sample", "test/runtime/transport/fixtures/sample-provider.ts");
  const script = `
    import { createRequire } from "node:module";
    await import("harness-tool");
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes("@grpc/grpc-js"));
    process.stdout.write(String(loaded));
  `;
  const run = spawnSync(process.execPath, [...sample.args.slice(0, 3), "--input-type=module", "-e", script], {
    cwd: sample.cwd,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "false");
});

// The probe preloaded into the provider: at its exit, whether @grpc/grpc-js was ever loaded.
const grpcJsProbe = `
  import { createRequire } from "node:module";
  import { writeSync } from "node:fs";
  const cache = createRequire(import.meta.url).cache;
  process.on("exit", () => writeSync(2, "grpc-js loaded: " + Object.keys(cache).some((f) => f.includes("@grpc/grpc-js")) + "\\n"));
`;

// The default (the variable removed from what launch() passes on), http2 named, and grpc-js set in
// the test process's own environment: launch() passes it on, as the interop and kernel tests rely on.
for (const [transport, autoMTLS, loaded] of [
  [undefined, false, "false"],
  [undefined, true, "false"],
  ["http2", false, "false"],
  ["grpc-js", false, "true"],
] as const) {
  const name = `HARNESS_TOOL_TRANSPORT=${transport ?? "(unset)"}${autoMTLS ? ", AutoMTLS" : ""}`;
  test(`${name}: GetSchema, Configure, an Invoke and Kill, and grpc-js loaded: ${loaded}`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "transport-probe-"));
    const probe = path.join(dir, "probe.mjs");
    writeFileSync(probe, grpcJsProbe);
    const sample = typeScriptProvider("sample", "test/runtime/transport/fixtures/sample-provider.ts");
    const before = process.env.HARNESS_TOOL_TRANSPORT;
    if (transport === "grpc-js") process.env.HARNESS_TOOL_TRANSPORT = transport;
    try {
      const p = await launch(sample.command, {
        args: sample.args,
        cwd: sample.cwd,
        handshakeTimeoutMs: 30_000,
        autoMTLS,
        env: {
          ...(transport === "grpc-js" ? {} : { HARNESS_TOOL_TRANSPORT: transport }),
          HARNESS_TOOL_SUPERVISOR: "off",
          NODE_OPTIONS: `--import=${probe}`,
        },
      });
      assert.ok((await p.getSchema()).tools.length > 0);
      await p.configure({ root: "/tmp" });
      const call = p.invoke({
        id: "e",
        toolName: "bash",
        arguments: { command: "echo hi" },
        callContext: { sessionId: "s", workingDirectory: "/tmp" },
      });
      const outcome = await call.done;
      assert.ok(outcome.events.some((e) => e.event.case === "result"));
      assert.ok((await p.kill()).graceful);
      assert.ok(
        p.stderr.some((e) => e.message.includes(`grpc-js loaded: ${loaded}`)),
        p.stderr.map((e) => e.message).join("\n"),
      );
    } finally {
      if (before === undefined) delete process.env.HARNESS_TOOL_TRANSPORT;
      else process.env.HARNESS_TOOL_TRANSPORT = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test("Kill() while a process-backed call runs: the call's children are killed, the provider exits gracefully", async () => {
  const sample = typeScriptProvider("sample", "test/runtime/transport/fixtures/sample-provider.ts");
  const p = await launch(sample.command, { args: sample.args, cwd: sample.cwd, handshakeTimeoutMs: 30_000 });
  await p.configure({ root: "/tmp" });
  const running = p.invoke({
    id: "b",
    toolName: "bash",
    arguments: { command: 'sleep 30 & echo "$$ $!"; wait' },
    callContext: { sessionId: "s", workingDirectory: "/tmp" },
  });
  const events = await running.waitForEvents(2);
  const printed = events
    .flatMap((e) => (e.event.case === "outputChunk" ? [new TextDecoder().decode(e.event.value.data)] : []))
    .join("");
  const pids = printed
    .split(/\s+/)
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
  assert.equal(pids.length, 2, printed);
  const report = await p.kill();
  assert.ok(report.graceful, `exited by itself (${report.durationMs} ms)`);
  for (const pid of pids) assert.ok(await eventually(() => processGone(pid), 3000), `child ${pid} is gone`);
  const outcome = await running.done;
  assert.ok(!outcome.events.some((e) => e.event.case === "result"), "no success claimed");
});
