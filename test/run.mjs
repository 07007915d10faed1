#!/usr/bin/env node
// Runs every *.test.ts under test/ (fixtures excluded) on Node's test runner through tsx.
// Node 20's `--test` neither expands globs nor picks up .ts files by itself, hence this list.
// Arguments are passed on, so `npm test -- --test-name-pattern=wire` works.
// The report is test/readable-reporter.mjs (a line per file, failures in full, then the TAP summary
// lines CI reads); `npm test -- --test-reporter=tap` prints raw TAP instead, and
// HARNESS_TOOL_TEST_TAP=<file> writes raw TAP to that file beside the readable report.
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

// HARNESS_TOOL_TEST_DIRS=cli,runtime/transport runs only the files under those folders of test/.
const only = (process.env.HARNESS_TOOL_TEST_DIRS ?? "").split(",").filter(Boolean);
const files = collect(testDir).filter((f) => only.length === 0 || only.some((d) => f.startsWith(path.join("test", d) + path.sep)));
const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs");
// The test files themselves resolve `harness-tool` imports (examples, generated code) to this
// checkout's TypeScript sources: the condition is a flag of the test processes (tsx hands it to
// node, node's runner to each file's process), never put into NODE_OPTIONS, so a process a test
// starts runs as it would for a user. A test that starts a fixture provider names the condition
// in that command itself (test/support/provider-script.ts).
const args = process.argv.slice(2);
const reporters = args.some((a) => a.startsWith("--test-reporter"))
  ? []
  : [
      `--test-reporter=${path.join(testDir, "readable-reporter.mjs")}`,
      "--test-reporter-destination=stdout",
      ...(process.env.HARNESS_TOOL_TEST_TAP ? ["--test-reporter=tap", `--test-reporter-destination=${process.env.HARNESS_TOOL_TEST_TAP}`] : []),
    ];
const result = spawnSync(process.execPath, [tsx, "--conditions=harness-tool-source", "--test", ...reporters, ...args, ...files], {
  cwd: root,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
