// Which test files `npm test`, `npm run test:e2e` and `npm run test:all` run, and in what order
// (test/run.mjs). `npm test` is the contributor's verdict in minutes: unit, compile-time, corpus and
// in-process transport tests. The end-to-end files (e2eTests below: they install packages, build
// Go, drive a browser or type-check whole projects) run under `npm run test:e2e`. Node's runner
// reports the files in the order it is given them, a file's line waiting for every file before it,
// and on a two-core machine it runs one file at a time, so within a suite the longest run last.
import { readdirSync } from "node:fs";
import path from "node:path";

const skip = new Set(["fixtures", "node_modules"]);

/** Every *.test.ts under `dir`, as paths relative to `root`, in name order. */
export function collectTestFiles(dir, root) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) {
      if (!skip.has(entry.name)) found.push(...collectTestFiles(path.join(dir, entry.name), root));
    } else if (entry.name.endsWith(".test.ts")) {
      found.push(path.relative(root, path.join(dir, entry.name)));
    }
  }
  return found;
}

/**
 * The end-to-end files (and folders of them): they pack tarballs and install them, build Go hosts
 * and the kernel, drive chromium and qemu, or run both compilers over whole projects, most a
 * minute or more each. `npm run test:e2e` runs them in this order, the longest last, so the lines
 * before them keep coming; `npm test` runs every other file. A file or folder here that no longer
 * exists is harmless.
 */
export const e2eTests = [
  "test/runtime/transport/broker-stream.test.ts", // the broker's streams through the go-plugin v1.8.0 host in Go
  "test/runtime/transport/load-faults.test.ts", // bundled providers that fail to load, under both hosts (Go's too)
  "test/runtime/transport/supervisor-wire.test.ts", // the supervisor under the go-plugin v1.8.0 host, sources and executable
  "test/supervisor-go.test.ts", // the Go supervisor's go vet and go test (builds Go, ~6 s)
  "test/supervisor-packages.test.ts", // the supervisor's platform packages: builds Go twice, npm pack (~3 s)
  "test/cli/check-hooks.test.ts", // check's hook rules against providers started for each case (~14 s)
  "test/cli/check-command.test.ts", // check end to end against example and broken providers (~18 s)
  "test/cli/mcp-serve-stdio.test.ts", // the examples served over MCP stdio, the Inspector CLI, the conformance suite (~2 min)
  "test/cli/check-truth.test.ts", // check's verdicts against providers that lie, each launched (~26 s)
  "test/cli/command-deadline.test.ts", // waits out every command's --timeout against hanging providers (idle, ~90 s)
  "test/cli/mcp-import.test.ts", // imports a test MCP server, generates and launches the provider per case (~25 s)
  "test/cli/mcp-import-real-servers.test.ts", // three MCP servers from npm imported, checked; two bundled and launched by the kernel in Go (~70 s)
  "test/cli/sync-handlers.test.ts", // ts-morph and tsc over a generated project, per case (~2 min under load)
  "test/typecheck.test.ts", // tsc 5.9 and 7 over the repository
  "test/plugin/examples.test.ts", // buf generate and both compilers over every example
  "test/runtime/reliability/", // fuzz, load and secrets rounds
  "test/runtime/interop/", // builds and drives the go-plugin v1.8.0 host in Go
  "test/runtime/kernel/", // the kernel's own launcher, from its source snapshot, in Go
  "test/cli/release.test.ts", // releases, runs linux_arm64 under qemu, the kernel's lock checks in Go
  "test/cli/release-supervisor.test.ts", // cross-builds supervisor-go, releases, runs linux_arm64 under qemu
  "test/cli/inspect-browser.test.ts", // chromium
  "test/provider-repo.test.ts", // packs the three packages and installs them
  "test/cli/init-e2e.test.ts", // packs, installs and builds a scaffold
  "test/cli/real-providers.test.ts", // packs, init, better-sqlite3 built by node-gyp, releases launched by the kernel
  "test/cli/mcp-import-e2e.test.ts", // packs, imports server-memory, installs, builds, tests, releases; the kernel launches it
  "test/bench-cost-table.test.ts", // builds bench/go and supervisor-go, quick cost-table runs (~30 s)
  "test/fresh-clone.test.ts", // clones, npm ci, the demo and the quick benchmarks
];

/** The file's place in e2eTests (itself or its folder), or -1 when it is not an end-to-end one. */
export function e2eRank(file) {
  const exact = e2eTests.indexOf(file);
  return exact !== -1 ? exact : e2eTests.findIndex((e2e) => e2e.endsWith("/") && file.startsWith(e2e));
}

/** The suites test/run.mjs runs: `npm test`, `npm run test:e2e` and `npm run test:all`. */
export const suites = {
  unit: { command: "npm test", e2e: false, rest: true },
  e2e: { command: "npm run test:e2e", e2e: true, rest: false },
  all: { command: "npm run test:all", e2e: true, rest: true },
};

/**
 * The files of `suite` among `files`, in the order they run: the rest in name order, then the
 * end-to-end ones in e2eTests' order.
 */
export function suiteFiles(files, suite) {
  const { e2e, rest } = suites[suite];
  const others = rest ? files.filter((f) => e2eRank(f) < 0) : [];
  const ends = e2e
    ? files.filter((f) => e2eRank(f) >= 0).sort((a, b) => e2eRank(a) - e2eRank(b) || a.localeCompare(b))
    : [];
  return [...others, ...ends];
}

const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** What `suite` prints before its first file finishes, given every file it was chosen from. */
export function startLine(suite, files, concurrency) {
  const { command, e2e, rest } = suites[suite];
  const ends = files.filter((f) => e2eRank(f) >= 0).length;
  const runs = suiteFiles(files, suite).length;
  const atATime = concurrency > 1 ? `${concurrency} at a time` : "one at a time";
  let endsPart = "";
  if (ends > 0 && !e2e) endsPart = ` (${count(ends, "end-to-end file", "end-to-end files")}: npm run test:e2e)`;
  else if (ends > 0 && rest) endsPart = `, ${count(ends, "end-to-end one", "end-to-end ones")} last`;
  const what = rest
    ? count(runs, "test file", "test files")
    : count(runs, "end-to-end test file", "end-to-end test files");
  return `${command}: ${what}, ${atATime}; a line as each finishes${endsPart}\n`;
}
