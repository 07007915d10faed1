// What keeps a mutation of soak/mutations.mjs armed: its file exists and holds the text it replaces
// exactly once (zero: a move or an edit disarmed it; twice: which one is mutated is an accident),
// and the tests that must fail exist. soak/mutation-check.mjs refuses to run while any problem is
// listed, and test/mutations.test.ts checks the same on every `npm test`.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/** How many times `text` occurs in `haystack` (occurrences do not overlap). */
export function occurrences(haystack, text) {
  if (text === "") return 0;
  let count = 0;
  for (let at = haystack.indexOf(text); at !== -1; at = haystack.indexOf(text, at + text.length)) count++;
  return count;
}

/** One line per problem of `mutations` against the tree at `root`; empty when every one is armed. */
export function mutationProblems(root, mutations) {
  const problems = [];
  for (const [name, file, from, to, tests, , extra] of mutations) {
    for (const [f, a] of [[file, from, to], ...(extra ? [extra] : [])]) {
      const full = path.join(root, f);
      if (!existsSync(full)) {
        problems.push(`${name}: no file ${f}`);
        continue;
      }
      const found = occurrences(readFileSync(full, "utf8"), a);
      if (found !== 1) problems.push(`${name}: ${f} holds the text to mutate ${found} times, not once`);
    }
    for (const t of tests) if (!existsSync(path.join(root, t))) problems.push(`${name}: no test ${t}`);
  }
  return problems;
}

/**
 * What a mutant's test run says, from its TAP counts: "killed" if a test failed or was cancelled
 * (a test cut off by --test-timeout, a call that never ends, is cancelled), "survived" if tests
 * passed and none failed, "no test ran" if none passed or failed (the name pattern matched
 * nothing, or every test skipped: no Go toolchain, say), which is no verdict on the mutation.
 */
export function mutantVerdict(tap) {
  if (/^# (fail|cancelled) [1-9]/m.test(tap)) return "killed";
  return /^# pass [1-9]/m.test(tap) ? "survived" : "no test ran";
}
