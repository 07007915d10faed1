/**
 * Reliability: faults, through the wire. Every handler failure mode (docs/runtime.md#reliability)
 * against a real provider process (test/runtime/reliability/fixtures/fault-provider.ts) launched
 * as the kernel launches it; each gets the terminal category the protocol prescribes (or none,
 * after a cancel), the process stays healthy (Ping SERVING, a following call succeeds), and child
 * processes die.
 * Then the host dying: SIGKILLed (the provider exits within go-plugin's 2 s and removes its
 * socket), and the broker stream ending with the connection still open.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  ToolErrorCategory,
  type ToolError,
  type ToolEvent,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { LaunchedProvider } from "harness-tool/testing";
import { eventually, fileGone, processGone } from "../interop/process-state.js";
import { callContext, launchFaultProvider, printedPids, terminals } from "./support/fault-provider.js";
import { brokerEndedScenario, childrenGoneWithinMs, hostSigkilledScenario } from "./support/host-scenarios.js";
import { supervisorUnderTest } from "../../support/supervisor-under-test.js";

/** The one terminal event of a finished call, asserting it is the last event and an error. */
function terminalError(events: readonly ToolEvent[]): ToolError {
  const found = terminals(events);
  assert.equal(found.length, 1, `exactly one terminal event: ${events.map((e) => e.event.case).join(",")}`);
  assert.equal(events.at(-1), found[0], "the terminal event closes the stream");
  const event = found[0]!.event;
  assert.equal(event.case, "error", "a terminal error");
  return event.value as ToolError;
}

describe("handler faults through the wire", () => {
  let p: LaunchedProvider;
  before(async () => {
    p = await launchFaultProvider();
  });
  after(async () => {
    await p?.kill();
  });

  /** The provider still answers: Ping SERVING, the process alive, and a following call succeeds. */
  async function assertHealthy(): Promise<void> {
    assert.equal(await p.ping(), 1, "Ping: SERVING");
    assert.ok(!processGone(p.pid), "the provider process is alive");
    const echo = await p.invoke({
      id: "probe",
      toolName: "echo",
      arguments: { text: "still here" },
      callContext: callContext(),
    }).done;
    assert.equal(echo.code, 0);
    assert.deepEqual(
      echo.events.map((e) => e.event.case),
      ["result"],
    );
  }

  async function fault(mode: string) {
    const outcome = await p.invoke({
      id: `fault-${mode}`,
      toolName: "fault",
      arguments: { mode },
      callContext: callContext(),
    }).done;
    assert.equal(outcome.code, 0, "the stream closes OK: the failure travels as a ToolEvent");
    return outcome;
  }

  test("a handler that throws: unknown, the raw error in details", async () => {
    const error = terminalError((await fault("throw")).events);
    assert.equal(error.category, ToolErrorCategory.UNKNOWN);
    const raw = (error.details as { error?: { name?: string; message?: string } } | undefined)?.error;
    assert.equal(raw?.name, "RangeError");
    assert.equal(raw?.message, "the handler threw");
    await assertHealthy();
  });

  test("a handler that rejects: unknown, the raw error in details", async () => {
    const error = terminalError((await fault("reject")).events);
    assert.equal(error.category, ToolErrorCategory.UNKNOWN);
    assert.equal((error.details as { error?: { name?: string } } | undefined)?.error?.name, "TypeError");
    await assertHealthy();
  });

  test("a thrown ToolError keeps its category and details", async () => {
    const error = terminalError((await fault("tool-error")).events);
    assert.equal(error.category, ToolErrorCategory.PERMISSION_DENIED);
    assert.deepEqual(error.details, { where: "/etc" });
    await assertHealthy();
  });

  test("an invalid output is never sent as a result: unknown, with the violations", async () => {
    const { events } = await fault("invalid-output");
    assert.ok(!events.some((e) => e.event.case === "result"));
    const error = terminalError(events);
    assert.equal(error.category, ToolErrorCategory.UNKNOWN);
    assert.match(error.message, /output_schema/);
    assert.ok(JSON.stringify(error.details).includes("/text"), JSON.stringify(error.details));
    await assertHealthy();
  });

  test("a handler hanging past its timeout: one retryable timeout error", async () => {
    const outcome = await p.invoke({
      id: "hang",
      toolName: "hang",
      arguments: { late: false },
      callContext: callContext(),
    }).done;
    const error = terminalError(outcome.events);
    assert.equal(error.category, ToolErrorCategory.TIMEOUT);
    assert.equal(error.retryable, true);
    await assertHealthy();
  });

  test("a handler returning success after its timeout: still timeout, the late result dropped", async () => {
    const outcome = await p.invoke({
      id: "late",
      toolName: "hang",
      arguments: { late: true },
      callContext: callContext(),
    }).done;
    assert.ok(!outcome.events.some((e) => e.event.case === "result"), "no late result");
    assert.equal(terminalError(outcome.events).category, ToolErrorCategory.TIMEOUT);
    await assertHealthy();
  });

  test("the kernel closing the stream mid-call: the handler's signal aborts with `cancelled`, no terminal event", async () => {
    const call = p.invoke({
      id: "coop",
      toolName: "fault",
      arguments: { mode: "cooperative" },
      callContext: callContext("s-coop"),
    });
    await call.waitForEvents(1);
    call.cancel();
    const outcome = await call.done;
    assert.equal(outcome.cancelled, true);
    // The handler saw the abort (it logs through the kernel's broker, which outlives the stream).
    const log = await p.kernel.waitFor("log", (r) => r.entry?.message.startsWith("stopped by") === true);
    assert.equal(log.entry?.message, "stopped by cancelled");
    assert.equal(log.sessionId, "s-coop");
    assert.deepEqual(terminals(outcome.events), [], "no result, even though the handler returned one");
    await assertHealthy();
  });

  test("a handler ignoring cancellation: no terminal event, the provider keeps serving the same tool", async () => {
    const call = p.invoke({
      id: "stubborn",
      toolName: "fault",
      arguments: { mode: "ignore-cancel" },
      callContext: callContext(),
    });
    await call.waitForEvents(1);
    call.cancel();
    const outcome = await call.done;
    assert.deepEqual(terminals(outcome.events), []);
    await assertHealthy();
    const again = terminalError((await fault("tool-error")).events);
    assert.equal(
      again.category,
      ToolErrorCategory.PERMISSION_DENIED,
      "the same tool still runs (safe: true, the orphan blocks nothing)",
    );
  });

  for (const [how, tool] of [
    ["cancelled", "stubborn_child"],
    ["timed out", "stubborn_child_timed"],
  ] as const) {
    test(`a child process ignoring SIGTERM, its call ${how}: the whole group is SIGKILLed`, async () => {
      const call = p.invoke({ id: `child-${tool}`, toolName: tool, arguments: {}, callContext: callContext() });
      let pids: number[] = [];
      for (let n = 1; pids.length === 0 && n <= 20; n++) pids = printedPids(await call.waitForEvents(n));
      assert.equal(pids.length, 2, `pids printed: ${JSON.stringify(call.events)}`);
      if (tool === "stubborn_child") call.cancel();
      const outcome = await call.done;
      if (tool === "stubborn_child") assert.deepEqual(terminals(outcome.events), [], "no terminal after a cancel");
      else assert.equal(terminalError(outcome.events).category, ToolErrorCategory.TIMEOUT);
      assert.ok(
        !outcome.events.some((e) => e.event.case === "exitStatus" && e.event.value.exitCode === 0),
        "never a fake clean exit",
      );
      for (const pid of pids)
        assert.ok(await eventually(() => processGone(pid), childrenGoneWithinMs), `process ${pid} is gone`);
      await assertHealthy();
    });
  }

  test("Kill() with orphaned handlers still in flight: a graceful exit, no socket left", async () => {
    // The ignore-cancel handler above never settles; Shutdown's grace cuts it off.
    const report = await p.kill();
    assert.ok(report.graceful, `exited by itself in ${report.durationMs.toFixed(0)} ms (go-plugin SIGKILLs at 2 s)`);
    assert.equal(report.exitCode, 0);
    assert.ok(fileGone(p.handshake.address));
  });
});

// A burst of cancelled calls through both host stacks: test/runtime/interop/reset-burst.test.ts.

// Both ways: under the supervisor (the default) its own watch of the host would hide a provider
// that no longer notices the host's death by itself (docs/runtime.md#the-supervisor).
for (const [label, env] of [
  ["", supervisorUnderTest()],
  [" (HARNESS_TOOL_SUPERVISOR=off)", { HARNESS_TOOL_SUPERVISOR: "off" }],
] as const) {
  test(`the host SIGKILLed mid-call: the provider exits within 2 s, kills its children, removes its socket${label}`, async () => {
    const ms = await hostSigkilledScenario(env);
    console.log(`# provider exited ${ms.toFixed(0)} ms after its host was SIGKILLed${label}`);
  });
}

test("the broker stream ending (connection still open, no Shutdown): the provider exits, children gone, no result claimed", () =>
  brokerEndedScenario());
