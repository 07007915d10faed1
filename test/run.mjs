#!/usr/bin/env node
// Runs every *.test.ts under test/ (fixtures excluded) on Node's test runner through tsx.
// Node 20's `--test` neither expands globs nor picks up .ts files by itself, hence this list.
// Arguments are passed on, so `npm test -- --test-name-pattern=wire` works.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const testDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(testDir);
const skip = new Set(["fixtures", "node_modules"]);

function collect(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) {
      if (!skip.has(entry.name)) found.push(...collect(path.join(dir, entry.name)));
    } else if (entry.name.endsWith(".test.ts")) {
      found.push(path.relative(root, path.join(dir, entry.name)));
    }
  }
  return found;
}

const files = collect(testDir);
const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs");
// Resolve `harness-tool` imports (examples, generated code) to this checkout's TypeScript sources,
// in every process the tests start, through NODE_OPTIONS.
const nodeOptions = [process.env.NODE_OPTIONS, "--conditions=harness-tool-source"].filter(Boolean).join(" ");
const result = spawnSync(process.execPath, [tsx, "--test", ...process.argv.slice(2), ...files], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NODE_OPTIONS: nodeOptions },
});
process.exit(result.status ?? 1);
