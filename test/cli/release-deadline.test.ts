/**
 * `release --timeout`: the release runs under one deadline. The tools it runs (npm, node, postject)
 * are killed when it passes, and the command fails with one line that says how long it waited
 * and how to give it longer. runTool outside a deadline behaves as before.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { releaseCommand } from "../../cli/commands/release-command.js";
import { runTool, ToolDeadline, withToolDeadline } from "../../cli/release/run-tool.js";
import { captureStream } from "../support/captured-stream.js";

const dir = mkdtempSync(path.join(tmpdir(), "release-deadline-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** An executable in `dir` that writes its pid to `<name>.pid`, then sleeps 60 s as that pid. */
function hangingTool(name: string): { command: string; pidFile: string } {
  const command = path.join(dir, name);
  const pidFile = `${command}.pid`;
  writeFileSync(command, `#!/bin/sh\necho $$ > "${pidFile}"\nexec sleep 60\n`);
  chmodSync(command, 0o755);
  return { command, pidFile };
}

/** Whether `pid` is still a process (a zombie counts until its parent reaps it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (up to 10 s) until the pid written to `pidFile` is gone; fails if it lives on. */
async function gone(pidFile: string): Promise<void> {
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  assert.ok(pid > 0, "the tool wrote its pid");
  for (let i = 0; i < 200 && alive(pid); i++) await sleep(50);
  assert.equal(alive(pid), false, `the tool (pid ${pid}) was killed`);
}

describe("release's deadline", () => {
  it("runTool outside a deadline resolves with the tool's stdout", async () => {
    assert.equal(await runTool("sh", ["-c", "echo made"], dir), "made\n");
  });

  it("kills a tool still running when the deadline passes and fails as ToolDeadline", async () => {
    const tool = hangingTool("slow-tool");
    const deadline = new AbortController();
    const running = withToolDeadline(deadline.signal, () => runTool(tool.command, ["pack", "x"], dir));
    for (let i = 0; i < 200; i++) {
      try {
        readFileSync(tool.pidFile);
        break;
      } catch {
        await sleep(25);
      }
    }
    deadline.abort();
    await assert.rejects(running, (error: unknown) => {
      assert.ok(error instanceof ToolDeadline);
      assert.equal(error.message, "slow-tool pack was still running at the deadline and was killed");
      return true;
    });
    await gone(tool.pidFile);
  });

  it("fails the release on one line naming the deadline and --timeout, the npm it ran killed", async () => {
    const npm = hangingTool("npm");
    const before = process.env["PATH"];
    process.env["PATH"] = `${dir}${path.delimiter}${before ?? ""}`;
    const out = captureStream();
    const err = captureStream();
    try {
      await assert.rejects(
        releaseCommand(path.join(dir, "main.ts"), {
          outDir: path.join(dir, "release"),
          platforms: ["linux_amd64"],
          nodeBinaries: ["24"],
          codeCache: false,
          timeoutMs: 1500,
          out: out.stream,
          err: err.stream,
        }),
        (error: unknown) => {
          assert.equal((error as Error).name, "ReleaseError");
          assert.equal(
            (error as Error).message,
            "did not finish within 1.5s, the tools it was running killed (a slow registry or network? give it longer with --timeout 3s)",
          );
          return true;
        },
      );
    } finally {
      process.env["PATH"] = before;
    }
    await gone(npm.pidFile);
    assert.equal(out.text(), "", "nothing on stdout: no lock block from a release that did not finish");
  });
});
