// launch() (harness-tool/testing, and every CLI command that starts a provider) gives up at the
// handshake timeout even when the provider is a wrapper script without `exec` whose child holds
// stdout and stderr open: it waits for the process it started, not for its pipes.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { describeExit, launch } from "harness-tool/testing";
import { processGone } from "../interop/process-state.js";

test("a wrapper whose child never prints the handshake: launch() rejects while that child still runs", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-wrapper-"));
  const pidFile = path.join(dir, "child.pid");
  const wrapper = path.join(dir, "provider");
  // No `exec`: sh stays the launched process; its child inherits stdout and stderr.
  writeFileSync(wrapper, `#!/bin/sh\nsleep 120 &\necho $! > "${pidFile}"\nwait\n`);
  chmodSync(wrapper, 0o755);
  let grandchild: number | undefined;
  try {
    await assert.rejects(
      launch(wrapper, { handshakeTimeoutMs: 1000 }),
      /no handshake line from the provider within 1000 ms/,
    );
    grandchild = Number(readFileSync(pidFile, "utf8").trim());
    assert.ok(grandchild > 0);
    // The rejection did not wait for the child that holds the pipes: it is still there.
    assert.equal(processGone(grandchild), false, "launch() waited for the wrapper's child to exit");
  } finally {
    if (grandchild !== undefined && !processGone(grandchild)) process.kill(grandchild, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("describeExit says how a provider ended, for a person: a shell's 126 and 127 by their meaning, a signal by name", () => {
  assert.equal(describeExit({ exitCode: 1, signal: null }), "exit code 1");
  assert.equal(describeExit({ exitCode: 127, signal: null }), "command not found (exit code 127)");
  assert.equal(
    describeExit({ exitCode: 126, signal: null }),
    "a command it runs could not be executed (exit code 126)",
  );
  assert.equal(describeExit({ exitCode: null, signal: "SIGKILL" }), "killed by SIGKILL");
});
