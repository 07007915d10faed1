// `npm test`'s plan (test/test-files.mjs): a first line before any file finishes, the slow files
// last so the fast ones report within seconds, and a list of slow files that names real ones.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { collectTestFiles, inRunOrder, slowRank, slowTests, startLine } from "./test-files.mjs";
import { repoRoot } from "./support/buf.js";

describe("npm test's order and first line", () => {
  const files = collectTestFiles(path.join(repoRoot, "test"), repoRoot);

  it("runs every file once, the slow ones last, the longest at the very end", () => {
    const ordered = inRunOrder(files);
    assert.deepEqual([...ordered].sort(), [...files].sort());
    const firstSlow = ordered.findIndex((f) => slowRank(f) >= 0);
    assert.ok(firstSlow > 0, "some files run before the slow ones");
    for (const f of ordered.slice(firstSlow))
      assert.ok(
        slowTests.some((s) => (s.endsWith("/") ? f.startsWith(s) : f === s)),
        f,
      );
    assert.equal(ordered.at(-1), "test/fresh-clone.test.ts");
    assert.ok(ordered.indexOf("test/cli/command-line.test.ts") < ordered.indexOf("test/cli/init-e2e.test.ts"));
  });

  it("names only files and folders that exist", () => {
    for (const slow of slowTests) assert.ok(existsSync(path.join(repoRoot, slow)), `${slow} is gone: take it out of slowTests`);
  });

  it("says how many files run, how, and that the slow ones come last", () => {
    assert.equal(
      startLine(["test/a.test.ts", "test/fresh-clone.test.ts"], 1),
      "npm test: 2 test files, one at a time; a line as each finishes, 1 slow one (a minute or more each) last\n",
    );
    assert.equal(startLine(["test/a.test.ts"], 3), "npm test: 1 test file, 3 at a time; a line as each finishes\n");
  });
});
