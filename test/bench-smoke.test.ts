// `npm run bench -- --quick` keeps working: every suite runs end to end on tiny sizes (its figures
// mean nothing; the real run writes bench/RESULTS.md).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

it("npm run bench -- --quick runs every suite", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-bench-smoke-"));
  try {
    const out = path.join(dir, "results.md");
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const run = spawnSync("npm", ["run", "bench", "--", "--quick", `--out=${out}`], { cwd: repoRoot, encoding: "utf8", env, timeout: 600_000 });
    assert.equal(run.status, 0, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`);
    const report = readFileSync(out, "utf8");
    for (const suite of ["Code generation", "Type-check", "Start-up", "Invoke", "Memory", "Streams", "Tracing cost", "Inspector page"]) {
      assert.match(report, new RegExp(suite), `the report has no ${suite} section`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
