/**
 * Interop: the same scenarios through harness-tool/testing's launch() and through a real
 * go-plugin host written in Go (Debian's go-plugin 1.0.1, grpc-go 1.33), against the sample
 * provider and the examples, each launched exactly as the kernel launches plugins.
 *
 * Skips only where `go` or Debian's go-plugin source is missing (a developer machine); .ci/run
 * installs them and sets HARNESS_TOOL_REQUIRE_INTEROP=1, so in CI the Go half always runs.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ToolErrorCategory, ToolKind, RiskClass, OutputStream, type ToolEvent } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { toolErrorCategoryNames } from "harness-tool";
import { buildGoHost, GoHost } from "./go-host.js";
import { eventually, fileGone, processGone } from "./process-state.js";
import { exampleProviders, sampleProvider } from "./providers.js";
import { launchWithGoHost, launchWithTypeScriptHost, type ProviderCommand, type ScenarioHost } from "./scenario-host.js";

const build = buildGoHost();
const goSkip = "skip" in build ? build.skip : false;
if (goSkip) console.log(`# interop with the Go go-plugin host skipped: ${goSkip}`);

/**
 * go-plugin's Kill() SIGKILLs after 2 s; a provider must exit well before. The bound is loose on
 * purpose (a loaded CI machine), and it is the protocol's rule, not a performance target.
 */
const killBoundMs = 1500;
/** How long a cancelled child process or an orphaned provider may take to disappear. */
const goneWithinMs = 3000;

const text = (data: Uint8Array) => new TextDecoder().decode(data);
const terminal = (events: readonly ToolEvent[]) => events.filter((e) => e.event.case === "result" || e.event.case === "error");
const callContext = (sessionId: string) => ({ sessionId, turnId: "turn-1", workingDirectory: "/tmp" });

/** A process-backed tool: how to call it with a shell script, and where its result keeps the exit code. */
interface ProcessTool {
  readonly tool: string;
  readonly args: (script: string) => { [key: string]: string };
  readonly exitCode: (payload: unknown) => unknown;
}

async function streamingProcessScenario(host: ScenarioHost, p: ProcessTool): Promise<void> {
  const script = "for i in 1 2 3 4 5; do echo line$i; done; echo oops >&2; exit 3";
  const outcome = await host.invoke({ id: "bash-1", toolName: p.tool, arguments: p.args(script), callContext: callContext("s-bash") });
  assert.equal(outcome.code, 0);
  const cases = outcome.events.map((e) => e.event.case);
  const stdout = outcome.events
    .flatMap((e) => (e.event.case === "outputChunk" && e.event.value.stream === OutputStream.STDOUT ? [text(e.event.value.data)] : []))
    .join("");
  assert.equal(stdout, "line1\nline2\nline3\nline4\nline5\n", `chunks in order (${cases.join(",")})`);
  const stderr = outcome.events
    .flatMap((e) => (e.event.case === "outputChunk" && e.event.value.stream === OutputStream.STDERR ? [text(e.event.value.data)] : []))
    .join("");
  assert.equal(stderr, "oops\n");
  const exits = outcome.events.filter((e) => e.event.case === "exitStatus");
  assert.equal(exits.length, 1, "exactly one exit_status");
  assert.equal(exits[0]?.event.case === "exitStatus" ? exits[0].event.value.exitCode : undefined, 3);
  const last = outcome.events.at(-1);
  assert.equal(last?.event.case, "result", "the result closes the stream");
  assert.equal(p.exitCode(last?.event.case === "result" ? last.event.value.payload : undefined), 3);
  assert.equal(terminal(outcome.events).length, 1);
  assert.ok(cases.indexOf("exitStatus") < cases.indexOf("result"));
}

async function cancellationScenario(host: ScenarioHost, p: ProcessTool, eventsBeforePids: number): Promise<void> {
  // One write with the shell's pid and a grandchild's, then wait: the chunk arrives whole.
  const script = 'sleep 30 & echo "$$ $!"; wait';
  const outcome = await host.invoke(
    { id: "bash-cancel", toolName: p.tool, arguments: p.args(script), callContext: callContext("s-cancel") },
    eventsBeforePids + 1,
  );
  assert.equal(outcome.cancelled, true);
  const cases = outcome.events.map((e) => e.event.case);
  assert.ok(!cases.includes("exitStatus"), `cancelled while the command ran (${cases.join(",")})`);
  assert.equal(terminal(outcome.events).length, 0, "no result or error after a cancel");
  const printed = outcome.events.flatMap((e) => (e.event.case === "outputChunk" ? [text(e.event.value.data)] : [])).join("");
  const pids = printed.split(/\s+/).filter((s) => /^\d+$/.test(s)).map(Number);
  assert.equal(pids.length, 2, `pids printed: ${JSON.stringify(printed)}`);
  for (const pid of pids) assert.ok(await eventually(() => processGone(pid), goneWithinMs), `process ${pid} is gone`);
  await host.ping();
}

async function killScenario(host: ScenarioHost): Promise<void> {
  const { pid, address } = host;
  const killed = await host.kill();
  assert.ok(killed.graceful, "exited by itself");
  assert.ok(killed.ms < killBoundMs, `Kill() took ${killed.ms} ms`);
  assert.ok(await eventually(() => processGone(pid), goneWithinMs), "the provider is gone");
  assert.ok(fileGone(address), `the socket ${address} was removed`);
  console.log(`# ${host.hostName} host: Kill() took ${killed.ms.toFixed(1)} ms`);
}

/** go-plugin's Kill() in the middle of a process-backed call: its children die with the provider. */
async function killDuringCallScenario(host: ScenarioHost, p: ProcessTool, eventsBeforePids: number): Promise<void> {
  const running = await host.startInvoke({ id: "bash-kill", toolName: p.tool, arguments: p.args('sleep 30 & echo "$$ $!"; wait'), callContext: callContext("s-kill") });
  const events = await running.events(eventsBeforePids + 1);
  const printed = events.flatMap((e) => (e.event.case === "outputChunk" ? [text(e.event.value.data)] : [])).join("");
  const pids = printed.split(/\s+/).filter((s) => /^\d+$/.test(s)).map(Number);
  assert.equal(pids.length, 2, `pids printed: ${JSON.stringify(printed)}`);
  await killScenario(host);
  for (const pid of pids) assert.ok(await eventually(() => processGone(pid), goneWithinMs), `child ${pid} is gone`);
}

const sampleBash: ProcessTool = { tool: "bash", args: (command) => ({ command }), exitCode: (payload) => (payload as { exitCode?: unknown }).exitCode };
const execBash: ProcessTool = { tool: "bash", args: (command) => ({ command }), exitCode: (payload) => (payload as { exit_code?: unknown }).exit_code };
const examples = new Map(exampleProviders().map((p) => [p.name, p]));

interface Harness {
  host: ScenarioHost;
  close(): Promise<void>;
}

async function start(hostName: "typescript" | "go", provider: ProviderCommand): Promise<Harness> {
  if (hostName === "typescript") {
    const host = await launchWithTypeScriptHost(provider);
    return { host, close: async () => void (await host.kill()) };
  }
  const go = new GoHost((build as { binary: string }).binary);
  const host = await launchWithGoHost(go, provider);
  return { host, close: () => go.close() };
}

for (const hostName of ["typescript", "go"] as const) {
  describe(`${hostName} host × sample provider`, { skip: hostName === "go" ? goSkip : false }, () => {
    let h: Harness;
    let host: ScenarioHost;
    before(async () => {
      h = await start(hostName, sampleProvider);
      host = h.host;
    });
    after(() => h?.close());

    test("handshake: core 1, app version 1, a unix socket, gRPC; Ping answers", async () => {
      assert.equal(host.appVersion, 1);
      assert.equal(host.network, "unix");
      assert.ok(!fileGone(host.address), `the socket ${host.address} exists`);
      await host.ping();
    });

    test("GetSchema decodes to the declared tools; Describe names the provider", async () => {
      const schema = await host.getSchema();
      assert.deepEqual(schema.tools.map((t) => t.name).sort(), ["bash", "echo", "fail", "note"]);
      const bash = schema.tools.find((t) => t.name === "bash");
      assert.equal(bash?.kind, ToolKind.RESOURCE);
      assert.equal(bash?.risk, RiskClass.HIGH);
      assert.equal(bash?.streaming, true);
      assert.equal(schema.configSchema?.attributes.find((a) => a.name === "root")?.required, true);
      const described = await host.describe();
      assert.equal(described.producer?.name, "sample");
      assert.equal(described.producer?.protocolVersion, 1);
    });

    test("Configure: a missing required field is INVALID_ARGUMENT with a ToolError in the status details; then accepted", async () => {
      const rejected = await host.configure({});
      assert.equal(rejected.code, 3);
      assert.equal(rejected.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
      assert.match(rejected.toolError?.message ?? "", /root/);
      assert.equal((await host.configure({ root: "/tmp" })).code, 0);
    });

    test("a non-streaming Invoke: exactly one event, the result", async () => {
      const outcome = await host.invoke({ id: "echo-1", toolName: "echo", arguments: { text: "hello" }, callContext: callContext("s-echo") });
      assert.equal(outcome.code, 0);
      assert.equal(outcome.events.length, 1);
      const [event] = outcome.events;
      assert.equal(event?.event.case, "result");
      assert.deepEqual(event?.event.case === "result" ? event.event.value.payload : undefined, { text: "hello" });
    });

    test("a streaming, process-backed Invoke: chunks in order, progress, one exit_status, then the result", async () => {
      await streamingProcessScenario(host, sampleBash);
      const outcome = await host.invoke({ id: "bash-2", toolName: "bash", arguments: { command: "true" }, callContext: callContext("s-bash") });
      assert.ok(outcome.events.some((e) => e.event.case === "progress"), "progress events arrive");
    });

    test("an error of each category a provider can emit ends the stream as one terminal error", async () => {
      for (const [index, name] of toolErrorCategoryNames.entries()) {
        const outcome = await host.invoke({ id: `fail-${name}`, toolName: "fail", arguments: { category: name }, callContext: callContext("s-fail") });
        assert.equal(outcome.code, 0, name);
        assert.equal(outcome.events.length, 1, name);
        const event = outcome.events[0];
        assert.equal(event?.event.case, "error", name);
        // Wire order: INVALID_ARGUMENTS = 1 ... CANCELLED = 7, then PROCESS_CRASHED (kernel only), UNKNOWN = 9.
        const expected = name === "unknown" ? ToolErrorCategory.UNKNOWN : index + 1;
        assert.equal(event?.event.case === "error" ? event.event.value.category : undefined, expected, name);
      }
      // An unexpected exception is classified, never an UNKNOWN status: unknown, the raw error in details.
      const crash = await host.invoke({ id: "fail-crash", toolName: "fail", arguments: { category: "crash" }, callContext: callContext("s-fail") });
      const event = crash.events[0];
      assert.equal(event?.event.case === "error" ? event.event.value.category : undefined, ToolErrorCategory.UNKNOWN);
      assert.ok(event?.event.case === "error" && event.event.value.details !== undefined, "details carry the raw error");
      // Arguments failing input_schema: invalid_arguments.
      const invalid = await host.invoke({ id: "echo-bad", toolName: "echo", arguments: { text: 42 }, callContext: callContext("s-fail") });
      assert.equal(invalid.events[0]?.event.case === "error" ? invalid.events[0].event.value.category : undefined, ToolErrorCategory.INVALID_ARGUMENTS);
    });

    test("cancellation mid-stream: no terminal event, the child processes are gone", async () => {
      // The sample's bash reports progress first.
      await cancellationScenario(host, sampleBash, 1);
    });

    test("Log arrives on broker ID 1 with the call's session id; console.warn keeps its level on the host", async () => {
      const outcome = await host.invoke({ id: "note-1", toolName: "note", arguments: { message: "noted via the kernel" }, callContext: callContext("session-42") });
      assert.equal(outcome.events[0]?.event.case, "result");
      let logs = await host.logCalls();
      await eventually(() => logs.some((l) => l.entry?.message === "noted via the kernel"), 1000);
      logs = await host.logCalls();
      const log = logs.find((l) => l.entry?.message === "noted via the kernel");
      assert.equal(log?.sessionId, "session-42");
      const hostLogs = await host.hostLogs();
      const warn = hostLogs.find((l) => l.message.includes("note tool called"));
      assert.equal(warn?.level, "warn", JSON.stringify(hostLogs.slice(-5)));
    });

    test("Kill() returns well under the 2 s SIGKILL path; no socket file, no process left", () => killScenario(host));
  });
}

for (const hostName of ["typescript", "go"] as const) {
  describe(`${hostName} host: Kill() during a running process-backed call`, { skip: hostName === "go" ? goSkip : false }, () => {
    test("sample provider: the call's children are gone, no orphan, no socket", async () => {
      const h = await start(hostName, sampleProvider);
      try {
        assert.equal((await h.host.configure({ root: "/tmp" })).code, 0);
        await killDuringCallScenario(h.host, sampleBash, 1);
      } finally {
        await h.close();
      }
    });
    const exec = examples.get("examples/exec");
    test("examples/exec: the call's children are gone, no orphan, no socket", { skip: exec ? false : "examples/exec is not there" }, async () => {
      const h = await start(hostName, exec as ProviderCommand);
      try {
        assert.equal((await h.host.configure({ allowed_roots: ["/tmp"] })).code, 0);
        await killDuringCallScenario(h.host, execBash, 0);
      } finally {
        await h.close();
      }
    });
  });
}

describe("go host SIGKILLed: the provider exits by itself, leaving no socket", { skip: goSkip }, () => {
  test("the broker stream and the connection break, the provider exits and removes its socket", async () => {
    const goBrokerSockets = () => new Set(readdirSync(os.tmpdir()).filter((name) => /^plugin\d+$/.test(name)));
    const before = goBrokerSockets();
    const go = new GoHost((build as { binary: string }).binary);
    const host = await launchWithGoHost(go, sampleProvider);
    await host.ping();
    go.sigkill();
    await go.exited;
    assert.ok(await eventually(() => processGone(host.pid), goneWithinMs), "the orphaned provider exited");
    assert.ok(fileGone(host.address), "its socket file is gone");
    // The SIGKILLed Go host cannot remove its own broker socket (go-plugin names it pluginNNNN).
    for (const name of goBrokerSockets()) if (!before.has(name)) rmSync(path.join(os.tmpdir(), name), { force: true });
  });
});


/** Scenarios of each example, by name; an example without an entry here gets the generic ones. */
const exampleScenarios: { readonly [name: string]: (host: () => ScenarioHost) => void } = {
  "examples/exec": (host) => {
    const bash = execBash;
    test("Configure with an allowed root", async () => {
      assert.equal((await host().configure({ allowed_roots: ["/tmp"] })).code, 0);
    });
    test("bash streams its output in order, one exit_status, then the result", () => streamingProcessScenario(host(), bash));
    test("bash cancelled mid-stream: no terminal event, the child processes are gone", () => cancellationScenario(host(), bash, 0));
  },
  "examples/filesystem": (host) => {
    const root = mkdtempSync(path.join(os.tmpdir(), "harness-tool-interop-fs-"));
    after(() => rmSync(root, { recursive: true, force: true }));
    test("Configure with an allowed root", async () => {
      assert.equal((await host().configure({ allowed_roots: [root] })).code, 0);
    });
    test("read_file: one result event, no lead-up", async () => {
      writeFileSync(path.join(root, "a.txt"), "one\ntwo\n");
      const outcome = await host().invoke({ id: "read-1", toolName: "read_file", arguments: { path: "a.txt" }, callContext: { ...callContext("s-fs"), workingDirectory: root } });
      assert.equal(outcome.events.length, 1);
      const [event] = outcome.events;
      assert.equal(event?.event.case, "result");
      assert.equal(event?.event.case === "result" ? event.event.value.payload?.content : undefined, "one\ntwo\n");
    });
    test("read_file errors: not_found for a missing file, permission_denied outside the roots", async () => {
      const missing = await host().invoke({ id: "read-2", toolName: "read_file", arguments: { path: "missing.txt" }, callContext: { ...callContext("s-fs"), workingDirectory: root } });
      assert.equal(missing.events[0]?.event.case === "error" ? missing.events[0].event.value.category : undefined, ToolErrorCategory.NOT_FOUND);
      const outside = await host().invoke({ id: "read-3", toolName: "read_file", arguments: { path: "/etc/hostname" }, callContext: { ...callContext("s-fs"), workingDirectory: root } });
      assert.equal(outside.events[0]?.event.case === "error" ? outside.events[0].event.value.category : undefined, ToolErrorCategory.PERMISSION_DENIED);
    });
  },
};

for (const provider of examples.values()) {
  for (const hostName of ["typescript", "go"] as const) {
    describe(`${hostName} host × ${provider.name}`, { skip: hostName === "go" ? goSkip : false }, () => {
      let h: Harness;
      before(async () => {
        h = await start(hostName, provider);
      });
      after(() => h?.close());
      test("handshake, Ping, GetSchema, Describe", async () => {
        assert.equal(h.host.network, "unix");
        await h.host.ping();
        const schema = await h.host.getSchema();
        assert.ok(schema.tools.length > 0);
        assert.ok((await h.host.describe()).producer?.name);
      });
      exampleScenarios[provider.name]?.(() => h.host);
      test("Kill() returns well under the 2 s SIGKILL path; no socket file, no process left", () => killScenario(h.host));
    });
  }
}
