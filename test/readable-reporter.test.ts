// The `npm test` reporter: a line per file, a failure's message and location, TODOs without stack
// traces, and the summary lines CI parses, exactly as the TAP reporter prints them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "./support/buf.js";

function runFixtures(reporter: string, fixtures = ["failing", "passing"], runnerArgs: string[] = []): string {
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const result = spawnSync(
    process.execPath,
    [
      "--test",
      ...runnerArgs,
      `--test-reporter=${reporter}`,
      "--test-reporter-destination=stdout",
      ...fixtures.map((f) => `test/fixtures/reporter/${f}.test.mjs`),
    ],
    { cwd: repoRoot, encoding: "utf8", env },
  );
  assert.equal(result.status, fixtures.includes("failing") ? 1 : 0, result.stderr);
  return result.stdout;
}

const summaryLine = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/gm;

describe("test/readable-reporter.mjs", () => {
  const out = runFixtures(path.join(repoRoot, "test/readable-reporter.mjs"));

  it("ends with the same summary lines as the TAP reporter", () => {
    const ours = out.match(summaryLine) ?? [];
    const tap = runFixtures("tap").match(summaryLine) ?? [];
    const names = (lines: string[]) => lines.map((l) => l.split(" ")[1]);
    assert.deepEqual(names(ours), ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo", "duration_ms"]);
    assert.deepEqual(
      ours.filter((l) => !l.startsWith("# duration_ms")),
      tap.filter((l) => !l.startsWith("# duration_ms")),
    );
    assert.deepEqual(ours.slice(0, 7), [
      "# tests 8",
      "# suites 3",
      "# pass 4",
      "# fail 1",
      "# cancelled 1",
      "# skipped 1",
      "# todo 1",
    ]);
    assert.match(out, /\n# duration_ms [\d.]+\n$/, "the summary is the last thing printed");
  });

  it("prints one line per file, with its counts", () => {
    assert.match(
      out,
      /^FAIL test\/fixtures\/reporter\/failing\.test\.mjs {2}\(1 passed, 2 failed, 1 cancelled; [\d.]+s\)$/m,
    );
    assert.match(
      out,
      /^ok {3}test\/fixtures\/reporter\/passing\.test\.mjs {2}\(3 passed, 1 skipped, 1 todo; [\d.]+s\)$/m,
    );
  });

  it("shows a failure with its suite, its message and its location, and recaps it before the summary", () => {
    assert.match(
      out,
      /✖ strings › compares\n {4}AssertionError: Expected values to be strictly equal:[\s\S]*\+ 'actual text'\n {4}- 'expected text'[\s\S]*at .*failing\.test\.mjs:8:\d+/,
    );
    assert.match(
      out,
      /\nfailed \(2\):\n {2}test\/fixtures\/reporter\/failing\.test\.mjs: strings › compares\n {2}test\/fixtures\/reporter\/failing\.test\.mjs: a suite whose setup fails\n\n# tests 8\n/,
    );
  });

  it("shows a failed hook once, on its suite, and counts the tests it cancelled as cancelled", () => {
    assert.match(out, /✖ a suite whose setup fails\n {4}Error: the setup failed\n {4}at .*failing\.test\.mjs:15:\d+/);
    assert.doesNotMatch(out, /never runs/);
  });

  it("names a TODO without its stack trace, and passes test output through", () => {
    assert.match(
      out,
      /\ntodo \(1\):\n {2}test\/fixtures\/reporter\/passing\.test\.mjs: arithmetic › divides by zero some day \(not yet\)\n/,
    );
    assert.doesNotMatch(out, /a TODO's failure/);
    assert.match(out, /^a line the test printed$/m);
  });

  it("is far shorter than TAP", () => {
    assert.ok(out.split("\n").length * 2 < runFixtures("tap").split("\n").length, out);
  });
});

describe("test/readable-reporter.mjs: skips, and files that finish out of order", () => {
  const reporter = path.join(repoRoot, "test/readable-reporter.mjs");
  // Several files at once: the slow first one is still running when the others have finished.
  const out = runFixtures(reporter, ["a-slow", "passing", "skipping"], ["--test-concurrency=3"]);

  it("counts skipped tests as the runner's summary does, names skipped suites apart, and says why", () => {
    assert.match(
      out,
      /^ok {3}test\/fixtures\/reporter\/skipping\.test\.mjs {2}\(1 passed, 1 skipped, 2 suites skipped; [\d.]+s\)$/m,
    );
    assert.match(
      out,
      /^ {2}↷ skipped 2 \(the page; the form\): chromium is not installed \(apt-get install chromium\)$/m,
    );
    assert.match(out, /^ {2}↷ skipped a test skipped on its own: not on this platform$/m);
    const perFile = [...out.matchAll(/, (\d+) skipped[,;]/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    assert.equal(`# skipped ${perFile}`, /^# skipped \d+$/m.exec(out)?.[0]);
  });

  it("prints each file's own counts even when it finished before the files given ahead of it", () => {
    assert.match(out, /^ok {3}test\/fixtures\/reporter\/a-slow\.test\.mjs {2}\(1 passed; [\d.]+s\)$/m);
    assert.match(
      out,
      /^ok {3}test\/fixtures\/reporter\/passing\.test\.mjs {2}\(3 passed, 1 skipped, 1 todo; [\d.]+s\)$/m,
    );
    assert.equal(out.match(/^(ok {3}|FAIL )/gm)?.length, 3, out);
  });
});
