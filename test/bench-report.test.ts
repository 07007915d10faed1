// The bench's verdicts: a contender that failed fails its figure and its suite, never a quiet "n/a".
import assert from "node:assert/strict";
import { it } from "node:test";
import { Samples, threeWay } from "../bench/kernel-figures.js";
import { compared, failedFigure, formatMs, suiteFailures, textTable, type SuiteReport } from "../bench/report.js";

const report = (over: Partial<SuiteReport>): SuiteReport => ({
  id: "s",
  title: "S",
  method: [],
  figures: [],
  notes: [],
  ...over,
});

it("a figure whose baseline has no samples is a FAIL, and the suite with it fails", () => {
  const figure = compared("wall", 10, formatMs, { label: "floor", value: Number.NaN });
  assert.equal(figure.verdict, "FAIL");
  assert.deepEqual(suiteFailures(report({ figures: [figure] })), ["wall: failed"]);
});

it("a three-way figure fails when any of the three contenders has no samples", () => {
  const samples = new Samples();
  const schema = () =>
    threeWay(
      "spawn → GetSchema",
      samples.three("schema", (v) => v[0] ?? Number.NaN),
      formatMs,
      { maxRatio: 1.25 },
    );
  samples.add("harness-tool", "schema", 100);
  samples.add("go", "schema", 7);
  assert.equal(schema().verdict, "FAIL");
  samples.add("bare", "schema", 90);
  assert.equal(schema().verdict, "pass");
});

it("a suite's failures and FAIL figures are listed with their errors, and printed", () => {
  const r = report({
    figures: [failedFigure("wall vs floor", "tsc exited 2: error TS18048")],
    failures: ["bare did not start: exit 1"],
  });
  assert.deepEqual(suiteFailures(r), ["bare did not start: exit 1", "wall vs floor: tsc exited 2: error TS18048"]);
  const table = textTable(r);
  assert.match(table, /FAIL\s+tsc exited 2/);
  assert.match(table, /FAILED: bare did not start: exit 1/);
  assert.doesNotMatch(table, /n\/a/);
  assert.deepEqual(suiteFailures(report({ figures: [compared("x", 1, formatMs, { label: "y", value: 2 })] })), []);
});
