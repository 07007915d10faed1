// Every mutation of soak/mutation-check.mjs stays armed: its file holds the text it replaces (the
// first occurrence is the one mutated), and the tests that must fail exist. Cheap, so it runs on
// every `npm test`; the mutations themselves run in `node soak/mutation-check.mjs` (minutes).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { mutations } from "../soak/mutations.mjs";
import { repoRoot } from "./support/buf.js";

it("every mutation finds its text and its tests", () => {
  assert.ok(mutations.length > 40, `only ${mutations.length} mutations: the list did not load`);
  const problems: string[] = [];
  for (const [name, file, from, to, tests, , extra] of mutations) {
    for (const [f, a] of [[file, from, to] as const, ...(extra ? [extra] : [])]) {
      const full = path.join(repoRoot, f);
      if (!existsSync(full)) problems.push(`${name}: no file ${f}`);
      else if (!readFileSync(full, "utf8").includes(a)) problems.push(`${name}: ${f} no longer holds the text to mutate`);
    }
    for (const t of tests) if (!existsSync(path.join(repoRoot, t))) problems.push(`${name}: no test ${t}`);
  }
  assert.deepEqual(problems, []);
});

it("the mutation names are unique", () => {
  const names = mutations.map((m) => m[0]);
  assert.equal(new Set(names).size, names.length);
});
