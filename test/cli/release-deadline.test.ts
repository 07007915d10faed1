/**
 * `release --timeout`: the release runs under one deadline. The tools it runs (npm, node, postject)
 * are killed when it passes, and the command fails with one line that says how long it waited
 * and how to give it longer. runTool outside a deadline behaves as before.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { releaseCommand } from "../../cli/commands/release-command.js";
import { runTool, ToolDeadline, withToolDeadline } from "../../cli/release/run-tool.js";
import { captureStream } from "../support/captured-stream.js";
import { hangingTool, toolGone } from "../support/hanging-tool.js";

const dir = mkdtempSync(path.join(tmpdir(), "release-deadline-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("release's deadline", () => {
  it("runTool outside a deadline resolves with the tool's stdout", async () => {
    assert.equal(await runTool("sh", ["-c", "echo made"], dir), "made\n");
  });

  it("kills a tool still running when the deadline passes and fails as ToolDeadline", async () => {
    const tool = hangingTool(dir, "slow-tool");
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
    await toolGone(tool.pidFile);
  });

  it("fails the release on one line naming the deadline and --timeout, the npm it ran killed", async () => {
    const npm = hangingTool(dir, "npm");
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
    await toolGone(npm.pidFile);
    assert.equal(out.text(), "", "nothing on stdout: no lock block from a release that did not finish");
  });
});
