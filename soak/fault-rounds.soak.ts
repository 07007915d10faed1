/**
 * Soak: one provider process through many rounds of every handler fault (FAULT_ROUNDS, default
 * 200): each round throws, rejects, returns an invalid output, times out, ignores a cancel and
 * runs a SIGTERM-proof child that is cancelled. After the rounds the provider still serves, has
 * no child process left, and its open file descriptors and RSS have not grown with the rounds.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { ToolErrorCategory } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { eventually } from "../test/runtime/interop/process-state.js";
import {
  callContext,
  launchFaultProvider,
  printedPids,
  terminals,
} from "../test/runtime/reliability/support/fault-provider.js";
import { servingPid } from "../test/support/serving-process.js";

const rounds = Number(process.env["FAULT_ROUNDS"] ?? "200");
const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0") / 1024;
/** Direct children of `pid` (from /proc/<pid>/task/<pid>/children). */
const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);

test(`${rounds} rounds of every fault against one provider: still serving, no growth`, async () => {
  const p = await launchFaultProvider();
  // The provider itself, not its supervisor (test/support/serving-process.ts).
  const pid = servingPid(p.pid);
  try {
    let baseline = { fds: 0, rss: 0 };
    for (let round = 0; round < rounds; round++) {
      if (round === Math.min(10, rounds - 1)) baseline = { fds: fds(pid), rss: rssMb(pid) };
      const failures = await Promise.all(
        ["throw", "reject", "invalid-output", "tool-error"].map(
          (mode) =>
            p.invoke({ id: `${round}-${mode}`, toolName: "fault", arguments: { mode }, callContext: callContext() })
              .done,
        ),
      );
      for (const f of failures) assert.equal(terminals(f.events).length, 1);
      const timeout = await p.invoke({
        id: `${round}-hang`,
        toolName: "hang",
        arguments: { late: round % 2 === 0 },
        callContext: callContext(),
      }).done;
      const end = terminals(timeout.events)[0]?.event;
      assert.equal(end?.case === "error" ? end.value.category : undefined, ToolErrorCategory.TIMEOUT);
      const ignored = p.invoke({
        id: `${round}-ignore`,
        toolName: "fault",
        arguments: { mode: "ignore-cancel" },
        callContext: callContext(),
      });
      await ignored.waitForEvents(1);
      ignored.cancel();
      assert.equal(terminals((await ignored.done).events).length, 0);
      const child = p.invoke({
        id: `${round}-child`,
        toolName: "stubborn_child",
        arguments: {},
        callContext: callContext(),
      });
      let pids: number[] = [];
      for (let n = 1; pids.length === 0 && n <= 20; n++) pids = printedPids(await child.waitForEvents(n));
      child.cancel();
      assert.equal(terminals((await child.done).events).length, 0);
    }
    assert.equal(await p.ping(), 1);
    assert.ok(
      await eventually(() => childrenOf(pid).length === 0, 5000),
      `child processes left: ${childrenOf(pid).join(" ")}`,
    );
    const now = { fds: fds(pid), rss: rssMb(pid) };
    console.log(
      `# after ${rounds} rounds: fds ${baseline.fds} -> ${now.fds}, RSS ${baseline.rss.toFixed(0)} -> ${now.rss.toFixed(0)} MB`,
    );
    assert.ok(now.fds <= baseline.fds + 10, "no file descriptor leak");
    // Orphaned handlers (ignore-cancel, hang) never settle by design, so a little state per round is expected;
    // the bound is loose: a leaked stream, socket or child pipe per round would exceed it.
    assert.ok(now.rss < baseline.rss + 150, "RSS bounded");
  } finally {
    assert.ok((await p.kill()).graceful);
  }
});
