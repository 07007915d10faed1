// With guardProcess, unhandled rejections and uncaught exceptions from handler-spawned work are
// reported on stderr and do not take the provider down.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { it } from "node:test";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../..");

it("a handler's forgotten rejection and a timer's throw do not end the process", () => {
  const run = spawnSync(
    process.execPath,
    [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(here, "support/unhandled-rejection-provider.ts")],
    {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "--conditions=harness-tool-source" },
    },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "survived\n");
  const report = JSON.parse(run.stderr.trim().split("\n").pop()!) as { terminal: string[]; guarded: number };
  assert.deepEqual(report.terminal, ["result"]);
  assert.equal(report.guarded, 2);
});
