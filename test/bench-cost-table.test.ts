// The cost table (`npm run bench -- cost-table`): its contenders as HARNESS_TOOL_COST_CONTENDERS
// names them, and a contender that does not start fails the run with its error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import { defaultContenders, parseContenderSpec } from "../bench/cost-table.js";
import { repoRoot } from "./support/buf.js";

const go = spawnSync("go", ["version"], { encoding: "utf8" });
const skip = go.status !== 0 && process.env.HARNESS_TOOL_REQUIRE_INTEROP !== "1" ? "`go` is not installed" : false;
const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-bench-cost-table-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `npm run bench -- cost-table --quick` with `env` added; its report goes to `out`. */
function runCostTable(env: { readonly [name: string]: string }, out: string) {
  const run = spawnSync(
    process.execPath,
    ["--conditions=harness-tool-source", "--import", "tsx", "bench/run.ts", "cost-table", "--quick", `--out=${out}`],
    { cwd: repoRoot, env: { ...process.env, ...env }, encoding: "utf8", timeout: 600_000 },
  );
  return { run, shown: `exit ${run.status}\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-3000)}` };
}

it("the contenders are <rev>:<supervisor> pairs, the default the before and the three after", () => {
  assert.deepEqual(parseContenderSpec("e6bedf1:node, tree:go-launcher"), [
    { rev: "e6bedf1", supervisor: "node" },
    { rev: "tree", supervisor: "go-launcher" },
  ]);
  assert.deepEqual(
    parseContenderSpec(defaultContenders).map((c) => c.supervisor),
    ["default", "exec", "node", "go-execve"],
  );
  assert.throws(
    () => parseContenderSpec("tree:rust"),
    /tree:rust is not <rev>:<supervisor>.*default, exec, node, go-execve/,
  );
  assert.throws(() => parseContenderSpec("tree"), /tree is not <rev>:<supervisor>/);
});

it("a contender that does not start fails the cost table with its error, the others measured", { skip }, () => {
  const broken = path.join(dir, "broken-supervisor");
  writeFileSync(broken, '#!/bin/sh\necho "supervisor broken on purpose" >&2\nexit 1\n');
  chmodSync(broken, 0o755);
  const out = path.join(dir, "results.md");
  const { run, shown } = runCostTable(
    { HARNESS_TOOL_COST_CONTENDERS: "tree:node,tree:go-launcher", HARNESS_TOOL_SUPERVISOR_BINARY: broken },
    out,
  );
  assert.equal(run.status, 1, shown);
  assert.match(run.stderr, /bench: cost-table failed: this tree, Go launcher: /, shown);
  assert.match(run.stderr, /bench: failed suites: cost-table/, shown);
  assert.doesNotMatch(run.stderr, /cost-table failed: this tree, Node supervisor/, shown);
  assert.ok(existsSync(out), "the report is still written");
  // The contender that ran is in the table after Go and the Node floor, the one that failed has no figure.
  const report = readFileSync(out, "utf8");
  assert.match(
    report,
    /\| spawn → GetSchema reply \| [\d.]+ ms \| [\d.]+ ms \([\d.]+× Go\) \| [\d.]+ ms \([\d.]+× Go\) \| — \(— Go\) \|/,
    report,
  );
  assert.match(report, /- FAILED: this tree, Go launcher: /);
  // The Node floor is measured on every row; each target says where it stands, and the judged
  // contender (the second, failed here) against it.
  assert.match(report, /\| figure \| Go \| Node floor \(bare node:http2 server\) \| A: /, report);
  const rows = report.split("\n").filter((line) => /^\| (?!figure|---)/.test(line) && line.includes("× Go"));
  assert.equal(rows.length, 10, report);
  for (const row of rows) assert.match(row.split(" | ")[2] ?? "", /^[\d.]+ (ms|MB|MB\/s) \([\d.]+× Go/, row);
  const stances = rows.filter((row) => /: (within|out of) Node's reach; B — the floor \|$/.test(row));
  assert.equal(stances.length, 8, report);
  assert.match(report, /the reference is the Node floor; B — the floor \|/, report);
});

it("a revision that is not a commit fails the cost table, saying so", { skip }, () => {
  const { run, shown } = runCostTable(
    { HARNESS_TOOL_COST_CONTENDERS: "no-such-revision:node" },
    path.join(dir, "results-rev.md"),
  );
  assert.equal(run.status, 1, shown);
  assert.match(run.stderr, /no-such-revision is not a commit of this repository/, shown);
});
