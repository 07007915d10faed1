// `npm run bench` fails, with the contender's error, when a contender fails: here the code
// generation suite's protoc-gen-harness-tool (HARNESS_TOOL_PLUGIN), which exits 1.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import { repoRoot } from "./support/buf.js";

const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-bench-fails-"));
after(() => rmSync(dir, { recursive: true, force: true }));

it("a plugin that fails fails npm run bench with its error", () => {
  const plugin = path.join(dir, "broken-plugin.mjs");
  writeFileSync(plugin, 'process.stderr.write("plugin broken on purpose\\n");\nprocess.exit(1);\n');
  const out = path.join(dir, "results.md");
  const run = spawnSync(
    process.execPath,
    ["--conditions=harness-tool-source", "--import", "tsx", "bench/run.ts", "codegen", "--quick", `--out=${out}`],
    {
      cwd: repoRoot,
      env: { ...process.env, HARNESS_TOOL_PLUGIN: plugin },
      encoding: "utf8",
      timeout: 240_000,
    },
  );
  const shown = `exit ${run.status}\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`;
  assert.equal(run.status, 1, shown);
  assert.match(run.stderr, /bench: codegen failed: .*plugin broken on purpose/, shown);
  assert.match(run.stderr, /bench: failed suites: codegen/, shown);
  assert.doesNotMatch(run.stdout, /\bn\/a\b/, shown);
  assert.ok(existsSync(out), "the report is still written");
  assert.match(readFileSync(out, "utf8"), /\| FAIL \|/);
});
