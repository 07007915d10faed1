#!/usr/bin/env node
// Checks that each reliability scenario fails when the behaviour it guards is removed: for every
// mutation below, a copy of the working tree (node_modules linked, nothing in this checkout
// touched) gets one edit, and the scenario's tests run against it; the mutation must make them
// fail. Prints one line per mutation and exits 1 if any mutation survived or its tests ran none; exits 2
// before running anything if a mutation's text is not in its file exactly once
// (soak/mutation-targets.mjs).
//
//   node soak/mutation-check.mjs            # all mutations
//   node soak/mutation-check.mjs timeout    # those whose name contains "timeout"
import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { mutantVerdict, mutationProblems } from "./mutation-targets.mjs";
import { mutations } from "./mutations.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/**
 * The copy's node_modules: each package linked to this checkout's, except the workspace packages
 * (`harness-tool` -> ../runtime, `@harness-tool/*`: relative links), which must resolve to the
 * copy's own sources, or a provider importing `harness-tool` would run the unmutated runtime.
 */
function linkNodeModules(from, to) {
  mkdirSync(to);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    const link = entry.isSymbolicLink() ? readlinkSync(source) : undefined;
    if (link !== undefined && !path.isAbsolute(link)) symlinkSync(link, target);
    else if (entry.isDirectory() && entry.name.startsWith("@")) linkNodeModules(source, target);
    else symlinkSync(source, target);
  }
}

const filter = process.argv[2] ?? "";
// A mutation whose text is gone (or found twice) would run its tests against an unmutated tree and
// say nothing useful: refuse to start until soak/mutations.mjs is brought up to date.
const problems = mutationProblems(root, mutations);
if (problems.length > 0) {
  console.error(`soak/mutations.mjs is out of date with the tree:\n  ${problems.join("\n  ")}`);
  process.exit(2);
}
const copy = mkdtempSync(path.join(os.tmpdir(), "harness-tool-mutants-"));
cpSync(root, copy, { recursive: true, filter: (src) => !/[/\\](node_modules|\.git)$/.test(src) });
linkNodeModules(path.join(root, "node_modules"), path.join(copy, "node_modules"));
let survived = 0;
try {
  for (const [name, file, from, to, tests, pattern, extra] of mutations) {
    if (!name.includes(filter)) continue;
    const edits = [[file, from, to], ...(extra ? [extra] : [])];
    const originals = new Map();
    for (const [f, a, b] of edits) {
      const target = path.join(copy, f);
      const text = originals.get(target) ?? readFileSync(target, "utf8");
      originals.set(target, text);
      const current = readFileSync(target, "utf8");
      if (!current.includes(a))
        throw new Error(
          `${name}: ${f} no longer contains the text to mutate after the first edit; update soak/mutations.mjs`,
        );
      writeFileSync(target, current.replace(a, b));
    }
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      [
        path.join(copy, "node_modules/tsx/dist/cli.mjs"),
        "--test",
        "--test-reporter=tap",
        "--test-timeout=30000",
        ...(pattern ? [`--test-name-pattern=${pattern}`] : []),
        ...tests,
      ],
      {
        cwd: copy,
        env: {
          ...process.env,
          NODE_OPTIONS: [process.env.NODE_OPTIONS, "--conditions=harness-tool-source"].filter(Boolean).join(" "),
        },
        encoding: "utf8",
      },
    );
    // TAP's counts: Node 24's default reporter is spec even into a pipe ("ℹ fail 1").
    const verdict = mutantVerdict(run.stdout);
    if (verdict !== "killed") survived++;
    console.log(
      `${verdict === "killed" ? "killed  " : verdict.toUpperCase()} ${name} (${tests.join(" ")}${pattern ? ` /${pattern}/` : ""}, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
    for (const [target, text] of originals) writeFileSync(target, text);
  }
} finally {
  rmSync(copy, { recursive: true, force: true });
}
process.exit(survived > 0 ? 1 : 0);
