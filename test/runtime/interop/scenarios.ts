/**
 * The interop scenarios, each a function of a launched provider, so the same checks run through
 * every host of the matrix and against every provider (the sample, the examples, the scaffold's
 * bundled provider).
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import type { JsonObject } from "@bufbuild/protobuf";
import { OutputStream, type ToolEvent } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { GoHost } from "./go-host.js";
import { eventually, fileGone, processGone } from "./process-state.js";
import type { ScenarioHost } from "./scenario-host.js";

/**
 * go-plugin's Kill() SIGKILLs after 2 s; a provider must exit well before. The bound is loose on
 * purpose (a loaded CI machine), and it is the protocol's rule, not a performance target.
 */
export const killBoundMs = 1500;
/** How long a cancelled child process or an orphaned provider may take to disappear. */
export const goneWithinMs = 3000;

const text = (data: Uint8Array) => new TextDecoder().decode(data);
export const terminal = (events: readonly ToolEvent[]) =>
  events.filter((e) => e.event.case === "result" || e.event.case === "error");
export const callContext = (sessionId: string) => ({ sessionId, turnId: "turn-1", workingDirectory: "/tmp" });

/** The shell's pid and its background child's, as `sleep 30 & echo "$$ $!"` printed them. */
export function printedPids(events: readonly ToolEvent[]): number[] {
  const printed = events.flatMap((e) => (e.event.case === "outputChunk" ? [text(e.event.value.data)] : [])).join("");
  const pids = printed
    .split(/\s+/)
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
  assert.equal(pids.length, 2, `pids printed: ${JSON.stringify(printed)}`);
  return pids;
}

/** A process-backed tool: how to call it with a shell script, and where its result keeps the exit code. */
export interface ProcessTool {
  readonly tool: string;
  readonly args: (script: string) => JsonObject;
  readonly exitCode: (payload: unknown) => unknown;
}

/** A streaming, process-backed call: chunks in order on both streams, one exit_status, then the result. */
export async function streamingProcessScenario(host: ScenarioHost, p: ProcessTool): Promise<void> {
  const script = "for i in 1 2 3 4 5; do echo line$i; done; echo oops >&2; exit 3";
  const outcome = await host.invoke({
    id: "bash-1",
    toolName: p.tool,
    arguments: p.args(script),
    callContext: callContext("s-bash"),
  });
  assert.equal(outcome.code, 0);
  const cases = outcome.events.map((e) => e.event.case);
  const stdout = outcome.events
    .flatMap((e) =>
      e.event.case === "outputChunk" && e.event.value.stream === OutputStream.STDOUT ? [text(e.event.value.data)] : [],
    )
    .join("");
  assert.equal(stdout, "line1\nline2\nline3\nline4\nline5\n", `chunks in order (${cases.join(",")})`);
  const stderr = outcome.events
    .flatMap((e) =>
      e.event.case === "outputChunk" && e.event.value.stream === OutputStream.STDERR ? [text(e.event.value.data)] : [],
    )
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

/** The host cancels mid-stream: no terminal event, the command's processes are gone, the provider still serves. */
export async function cancellationScenario(
  host: ScenarioHost,
  p: ProcessTool,
  eventsBeforePids: number,
): Promise<void> {
  // One write with the shell's pid and a grandchild's, then wait: the chunk arrives whole.
  const script = 'sleep 30 & echo "$$ $!"; wait';
  const outcome = await host.invoke(
    { id: "bash-cancel", toolName: p.tool, arguments: p.args(script), callContext: callContext("s-cancel") },
    { cancelAfter: eventsBeforePids + 1 },
  );
  assert.equal(outcome.cancelled, true);
  const cases = outcome.events.map((e) => e.event.case);
  assert.ok(!cases.includes("exitStatus"), `cancelled while the command ran (${cases.join(",")})`);
  assert.equal(terminal(outcome.events).length, 0, "no result or error after a cancel");
  const pids = printedPids(outcome.events);
  for (const pid of pids) assert.ok(await eventually(() => processGone(pid), goneWithinMs), `process ${pid} is gone`);
  await host.ping();
}

/** go-plugin's Kill() in the middle of a process-backed call: its children die with the provider. */
export async function killDuringCallScenario(
  host: ScenarioHost,
  p: ProcessTool,
  eventsBeforePids: number,
  go?: GoHost,
): Promise<void> {
  const running = await host.startInvoke({
    id: "bash-kill",
    toolName: p.tool,
    arguments: p.args('sleep 30 & echo "$$ $!"; wait'),
    callContext: callContext("s-kill"),
  });
  const events = await running.events(eventsBeforePids + 1);
  const pids = printedPids(events);
  await killScenario(host, go);
  for (const pid of pids) assert.ok(await eventually(() => processGone(pid), goneWithinMs), `child ${pid} is gone`);
}

/**
 * Handshake as the host saw it: core 1, app version 1, gRPC on a unix socket that exists, Ping
 * answers; with `socketDir`, the socket is in the directory PLUGIN_UNIX_SOCKET_DIR named.
 */
export async function handshakeScenario(host: ScenarioHost, socketDir?: string): Promise<void> {
  assert.equal(host.appVersion, 1);
  assert.equal(host.network, "unix");
  assert.ok(!fileGone(host.address), `the socket ${host.address} exists`);
  if (socketDir !== undefined)
    assert.equal(
      host.address.slice(0, host.address.lastIndexOf("/")),
      socketDir,
      "the socket is in PLUGIN_UNIX_SOCKET_DIR",
    );
  await host.ping();
}

/** go-plugin v1.8.0 opened plugin.GRPCStdio/StreamStdio and reads it: no "unavailable" warning. */
export async function streamStdioScenario(go: GoHost): Promise<void> {
  const stdio = (await go.logEntries()).filter((e) => e.module === "host.stdio");
  assert.ok(
    stdio.some((e) => e.message === "waiting for stdio data"),
    `the host reads StreamStdio: ${JSON.stringify(stdio)}`,
  );
  assert.deepEqual(
    stdio.filter((e) => e.level === "warn" || e.level === "error"),
    [],
    "StreamStdio served without a warning",
  );
  // Console output reaches the host as stderr log lines with their levels, not as raw stdio bytes.
  assert.deepEqual(await go.stdio(), { stdout: "", stderr: "" });
}

/**
 * Every provider stderr line the host logged so far kept its shape: no JSON line logged raw
 * (go-plugin logs a JSON line it cannot parse verbatim at debug level), no stack trace scattered
 * over untagged lines.
 */
export async function logHygieneScenario(host: ScenarioHost): Promise<void> {
  const lines = await host.hostLogs();
  assert.ok(lines.length > 0, "the provider logged something");
  const raw = lines.filter((l) => l.message.trimStart().startsWith("{"));
  assert.deepEqual(raw, [], "no JSON line logged raw");
  const stackLines = lines.filter((l) => /^\s+at /.test(l.message));
  assert.deepEqual(stackLines, [], "no stack trace line logged on its own");
}

/**
 * The host's Kill(): controller Shutdown, then the process is gone well inside go-plugin's 2 s,
 * its socket file removed; with `socketDir`, nothing is left in it.
 */
export async function killScenario(host: ScenarioHost, go?: GoHost, socketDir?: string): Promise<void> {
  const { pid, address } = host;
  const killed = await host.kill();
  assert.ok(killed.graceful, "exited by itself");
  assert.ok(killed.ms < killBoundMs, `Kill() took ${killed.ms} ms`);
  assert.ok(await eventually(() => processGone(pid), goneWithinMs), "the provider is gone");
  assert.ok(fileGone(address), `the socket ${address} was removed`);
  if (socketDir !== undefined) assert.deepEqual(readdirSync(socketDir), [], `nothing left in ${socketDir}`);
  if (go) {
    const entries = await go.logEntries();
    const shutdown = entries.find((e) => e.message === "provider shutting down");
    assert.equal(shutdown?.fields.reason, "shutdown-rpc", "the provider shut down on the controller's Shutdown");
    // go-plugin's stdio loop logs its end on a goroutine Kill() does not wait for.
    const stdioEnded = async () =>
      (await go.logEntries()).some(
        (e) => e.module === "host.stdio" && e.message === "received EOF, stopping recv loop",
      );
    assert.ok(await eventually(stdioEnded, goneWithinMs), "the StreamStdio stream ended cleanly");
  }
  // The shutdown's own debug line is there by now, so the check never passes on an empty log.
  await logHygieneScenario(host);
  console.log(`# ${host.hostName}${host.autoMTLS ? " (AutoMTLS)" : ""} host: Kill() took ${killed.ms.toFixed(1)} ms`);
}

/** The host SIGKILLed (a crashed kernel): the orphaned provider notices and exits, removing its socket. */
export async function hostSigkilledScenario(go: GoHost, host: ScenarioHost): Promise<void> {
  await host.ping();
  go.sigkill();
  await go.exited;
  assert.ok(await eventually(() => processGone(host.pid), goneWithinMs), "the orphaned provider exited");
  assert.ok(fileGone(host.address), "its socket file is gone");
}
