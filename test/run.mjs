#!/usr/bin/env node
// Runs the *.test.ts files under test/ (fixtures excluded) on Node's test runner through tsx, after
// a first line saying how many and how: `npm test` all but the end-to-end ones, `npm run test:e2e`
// (--e2e) those, `npm run test:all` (--all) both, the end-to-end ones last (test/test-files.mjs).
// Node 22's `--test` (the engines floor) picks up no .ts files by itself, hence this list.
// Arguments are passed on, so `npm test -- --test-name-pattern=wire` works.
// The report is test/readable-reporter.mjs (a line per file, failures in full, then the TAP summary
// lines CI reads); `npm test -- --test-reporter=tap` prints raw TAP instead, and
// HARNESS_TOOL_TEST_TAP=<file> writes raw TAP to that file beside the readable report.
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { installSupervisorPackage } from "./support/supervisor-package.mjs";
import { collectTestFiles, startLine, suiteFiles, suites } from "./test-files.mjs";

const testDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(testDir);

// HARNESS_TOOL_TEST_DIRS=cli,runtime/transport runs only the files under those folders of test/.
const only = (process.env.HARNESS_TOOL_TEST_DIRS ?? "").split(",").filter(Boolean);
const selected = collectTestFiles(testDir, root).filter(
  (f) => only.length === 0 || only.some((d) => f.startsWith(path.join("test", d) + path.sep)),
);
const ownFlags = { "--e2e": "e2e", "--all": "all" };
const ownFlag = (a) => Object.hasOwn(ownFlags, a);
const suite = ownFlags[process.argv.slice(2).find(ownFlag)] ?? "unit";
const files = suiteFiles(selected, suite);
const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs");
// The test files themselves resolve `harness-tool` imports (examples, generated code) to this
// checkout's TypeScript sources: the condition is a flag of the test processes (tsx hands it to
// node, node's runner to each file's process), never put into NODE_OPTIONS, so a process a test
// starts runs as it would for a user. A test that starts a fixture provider names the condition
// in that command itself (test/support/provider-script.ts).
const args = process.argv.slice(2).filter((a) => !ownFlag(a));
const reporters = args.some((a) => a.startsWith("--test-reporter"))
  ? []
  : [
      `--test-reporter=${path.join(testDir, "readable-reporter.mjs")}`,
      "--test-reporter-destination=stdout",
      ...(process.env.HARNESS_TOOL_TEST_TAP
        ? ["--test-reporter=tap", `--test-reporter-destination=${process.env.HARNESS_TOOL_TEST_TAP}`]
        : []),
    ];
// Node's own default (one file at a time on two cores), passed explicitly so the first line can
// say it; `npm test -- --test-concurrency=N` overrides it.
const givenConcurrency = /^--test-concurrency=(\d+)$/.exec(
  args.find((a) => a.startsWith("--test-concurrency=")) ?? "",
)?.[1];
const concurrency = Number(givenConcurrency ?? Math.max(1, availableParallelism() - 1));
if (files.length === 0) {
  process.stderr.write(
    `${suites[suite].command}: no test files under test/${only.length > 0 ? ` in ${only.join(", ")}` : ""}\n`,
  );
  process.exit(1);
}
if (reporters.length > 0) process.stdout.write(startLine(suite, selected, concurrency));
// The supervised providers the tests launch run under the Go supervisor program by default, as a
// user's install does: it is built once per run and installed as this platform's package in
// node_modules (test/support/supervisor-package.mjs). HARNESS_TOOL_SUPERVISOR_BINARY=node npm test
// runs them all under the Node supervisor; the supervisor tests run both either way.
const supervisor = installSupervisorPackage({ force: true });
if (reporters.length > 0)
  process.stdout.write(
    supervisor.binary
      ? `supervisor: the Go program (built and installed in ${supervisor.seconds.toFixed(1)} s)\n`
      : `supervisor: the Node supervisor (no Go program: ${supervisor.reason})\n`,
  );
const result = spawnSync(
  process.execPath,
  [
    tsx,
    "--conditions=harness-tool-source",
    "--test",
    ...(givenConcurrency ? [] : [`--test-concurrency=${concurrency}`]),
    ...reporters,
    ...args,
    ...files,
  ],
  {
    cwd: root,
    stdio: "inherit",
  },
);
process.exit(result.status ?? 1);
