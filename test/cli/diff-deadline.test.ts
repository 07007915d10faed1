/**
 * diff's bound on the tools it runs: a `git` or a `buf generate` that never answers is killed at
 * diffToolBounds and the command fails on one line naming the tool and the bound.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { diffToolBounds, loadSurface } from "../../cli/diff/load-surface.js";
import { hangingTool, toolGone } from "../support/hanging-tool.js";

const dir = mkdtempSync(path.join(tmpdir(), "diff-deadline-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("diff's tool bound", () => {
  it("kills a git that hangs and fails on one line naming it and the bound", async () => {
    const git = hangingTool(dir, "git");
    const before = { path: process.env["PATH"], bound: diffToolBounds.timeoutMs };
    process.env["PATH"] = `${dir}${path.delimiter}${before.path ?? ""}`;
    diffToolBounds.timeoutMs = 300;
    try {
      await assert.rejects(loadSurface("git:HEAD:schema/tools.json", dir), (error: unknown) => {
        assert.equal((error as Error).name, "UsageError");
        assert.equal(
          (error as Error).message,
          "git:HEAD:schema/tools.json: git rev-parse did not finish within 0.3s and was killed (a lock held or a network fetch hanging? run it yourself to see)",
        );
        return true;
      });
    } finally {
      process.env["PATH"] = before.path;
      diffToolBounds.timeoutMs = before.bound;
    }
    await toolGone(git.pidFile);
  });

  it("kills a buf generate that hangs and fails on one line naming it and the bound", async () => {
    // A provider project as `protos:` finds it: a buf workspace under the folder holding node_modules.
    const project = path.join(dir, "project");
    const bin = path.join(project, "node_modules/.bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(project, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n");
    writeFileSync(path.join(bin, "protoc-gen-harness-tool"), "");
    const buf = hangingTool(bin, "buf");
    const before = diffToolBounds.timeoutMs;
    diffToolBounds.timeoutMs = 300;
    try {
      await assert.rejects(loadSurface("protos:.", project), (error: unknown) => {
        assert.equal((error as Error).name, "UsageError");
        assert.equal(
          (error as Error).message,
          "protos:.: buf generate did not finish within 0.3s and was killed (a lock held or a network fetch hanging? run it yourself to see)",
        );
        return true;
      });
    } finally {
      diffToolBounds.timeoutMs = before;
    }
    await toolGone(buf.pidFile);
  });
});
