// The deadline's kill (cli/provider/process-tree.ts): a provider's whole tree is signalled, and the
// command waits until the processes are gone, not merely signalled (a SIGKILL is delivered
// asynchronously, so a process signalled a moment ago may still be running).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { it } from "node:test";
import { killProcessTree, processesGone, processTree } from "../../cli/provider/process-tree.js";

it("kills a process and its child, and processesGone resolves once both are gone, not before", async () => {
  // A parent that starts a child and both sleep; the child's pid comes on stdout.
  const parent = spawn(
    process.execPath,
    [
      "-e",
      `const c = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
       process.stdout.write(String(c.pid) + "\\n"); setTimeout(() => {}, 60000);`,
    ],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  const [line] = (await once(parent.stdout, "data")) as [Buffer];
  const child = Number(line.toString().trim());
  const pid = parent.pid as number;
  try {
    assert.deepEqual(processTree(pid), [pid, child]);

    // Running processes hold processesGone until its timeout.
    let started = performance.now();
    await processesGone([pid, child], 150);
    assert.ok(performance.now() - started >= 140, "processesGone resolved while the processes ran");

    const killed = killProcessTree(pid);
    assert.deepEqual(killed, [pid, child]);
    started = performance.now();
    await processesGone(killed, 5_000);
    assert.ok(performance.now() - started < 4_000, "processesGone waited out its timeout after the kill");
  } finally {
    for (const each of [pid, child]) {
      try {
        process.kill(each, "SIGKILL");
      } catch {
        // Gone.
      }
    }
  }
});
