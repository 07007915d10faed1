// Every mutation of soak/mutation-check.mjs stays armed: its file holds the text it replaces exactly
// once, and the tests that must fail exist (soak/mutation-targets.mjs, which the check itself runs
// before anything else). Cheap, so it runs on every `npm test`; the mutations themselves run in
// `node soak/mutation-check.mjs` (minutes).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { it } from "node:test";
import { mutantVerdict, mutationProblems, occurrences } from "../soak/mutation-targets.mjs";
import { mutations } from "../soak/mutations.mjs";
import { repoRoot } from "./support/buf.js";

it("every mutation finds its text exactly once, and its tests", () => {
  assert.ok(mutations.length > 40, `only ${mutations.length} mutations: the list did not load`);
  assert.deepEqual(mutationProblems(repoRoot, mutations), []);
});

it("a text found twice, a text gone, a missing file or test are each a problem", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "harness-tool-mutation-targets-"));
  try {
    mkdirSync(path.join(root, "src"));
    writeFileSync(path.join(root, "src/a.ts"), "check();\ncheck();\nguard();\n");
    writeFileSync(path.join(root, "a.test.ts"), "");
    const problems = mutationProblems(root, [
      ["armed", "src/a.ts", "guard();", "", ["a.test.ts"], ""],
      ["twice", "src/a.ts", "check();", "", ["a.test.ts"], ""],
      ["gone", "src/a.ts", "moved();", "", ["a.test.ts"], ""],
      ["no file", "src/b.ts", "guard();", "", ["a.test.ts"], ""],
      ["second edit gone", "src/a.ts", "guard();", "", ["a.test.ts"], "", ["src/a.ts", "moved();", ""]],
      ["no test", "src/a.ts", "guard();", "", ["b.test.ts"], ""],
    ]);
    assert.deepEqual(problems, [
      "twice: src/a.ts holds the text to mutate 2 times, not once",
      "gone: src/a.ts holds the text to mutate 0 times, not once",
      "no file: no file src/b.ts",
      "second edit gone: src/a.ts holds the text to mutate 0 times, not once",
      "no test: no test b.test.ts",
    ]);
    assert.equal(occurrences("aaaa", "aa"), 2);
    assert.equal(occurrences("abc", ""), 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

it("a mutant's run with no test passed or failed is no verdict, not a survivor", () => {
  const tap = (pass: number, fail: number, cancelled: number, skipped: number) =>
    `TAP version 13\n# tests ${pass + fail + cancelled + skipped}\n# pass ${pass}\n# fail ${fail}\n# cancelled ${cancelled}\n# skipped ${skipped}\n`;
  assert.equal(mutantVerdict(tap(3, 1, 0, 0)), "killed");
  assert.equal(mutantVerdict(tap(3, 0, 1, 0)), "killed");
  assert.equal(mutantVerdict(tap(3, 0, 0, 0)), "survived");
  assert.equal(mutantVerdict(tap(0, 0, 0, 4)), "no test ran");
  assert.equal(mutantVerdict(tap(0, 0, 0, 0)), "no test ran");
  assert.equal(mutantVerdict("ℹ tests 1\nℹ fail 1\n"), "no test ran");
});

it("the mutation names are unique", () => {
  const names = mutations.map((m) => m[0]);
  assert.equal(new Set(names).size, names.length);
});
