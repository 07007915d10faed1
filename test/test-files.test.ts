// The suites' plans (test/test-files.mjs): `npm test` runs every file but the end-to-end ones,
// `npm run test:e2e` exactly those, the longest last, `npm run test:all` both; each prints a first
// line before any file finishes; and the list of end-to-end files names real ones.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { collectTestFiles, e2eRank, e2eTests, startLine, suiteFiles, suites } from "./test-files.mjs";
import { repoRoot } from "./support/buf.js";

describe("the test suites' files, order and first line", () => {
  const files = collectTestFiles(path.join(repoRoot, "test"), repoRoot);
  const unit = suiteFiles(files, "unit");
  const e2e = suiteFiles(files, "e2e");

  it("npm test and npm run test:e2e split the files between them, each once", () => {
    assert.deepEqual([...unit, ...e2e].sort(), [...files].sort());
    assert.ok(unit.length > 0 && e2e.length > 0);
    for (const f of unit) assert.equal(e2eRank(f), -1, `${f} is end-to-end`);
    for (const f of e2e) assert.ok(e2eRank(f) >= 0, f);
    assert.ok(unit.includes("test/cli/command-line.test.ts"));
    assert.ok(e2e.includes("test/cli/init-e2e.test.ts"));
  });

  it("runs the end-to-end files in e2eTests' order, the longest at the very end; test:all runs both", () => {
    assert.deepEqual(
      e2e.map(e2eRank),
      e2e.map(e2eRank).toSorted((a, b) => a - b),
    );
    assert.equal(e2e.at(-1), "test/fresh-clone.test.ts");
    assert.deepEqual(suiteFiles(files, "all"), [...unit, ...e2e]);
  });

  it("names only files and folders that exist", () => {
    for (const e2eFile of e2eTests)
      assert.ok(existsSync(path.join(repoRoot, e2eFile)), `${e2eFile} is gone: take it out of e2eTests`);
  });

  it("package.json runs each suite with the flag test/run.mjs reads", () => {
    const scripts = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")).scripts;
    assert.equal(scripts.test, "node test/run.mjs");
    assert.equal(scripts["test:e2e"], "node test/run.mjs --e2e");
    assert.equal(scripts["test:all"], "node test/run.mjs --all");
    assert.deepEqual(Object.keys(suites).sort(), ["all", "e2e", "unit"]);
  });

  it("says how many files run, how, and where the others are", () => {
    const given = ["test/a.test.ts", "test/b.test.ts", "test/fresh-clone.test.ts"];
    assert.equal(
      startLine("unit", given, 1),
      "npm test: 2 test files, one at a time; a line as each finishes (1 end-to-end file: npm run test:e2e)\n",
    );
    assert.equal(
      startLine("unit", ["test/a.test.ts"], 3),
      "npm test: 1 test file, 3 at a time; a line as each finishes\n",
    );
    assert.equal(
      startLine("e2e", given, 1),
      "npm run test:e2e: 1 end-to-end test file, one at a time; a line as each finishes\n",
    );
    assert.equal(
      startLine("all", given, 1),
      "npm run test:all: 3 test files, one at a time; a line as each finishes, 1 end-to-end one last\n",
    );
  });
});
