// Which test files `npm test` runs and in what order (test/run.mjs). Node's runner reports the
// files in the order it is given them, a file's line waiting for every file before it, and on a
// two-core machine it runs one file at a time: a slow file first would hold every line back for
// minutes. So the files that install packages, build Go, drive a browser or type-check whole
// projects run last, each taking a minute or more; everything else runs first, in name order.
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
 * The slow files (and folders of them), in the order they run at the end: the longest last, so
 * the lines before them keep coming. A file or folder here that no longer exists is harmless.
 */
export const slowTests = [
  "test/cli/command-deadline.test.ts", // waits out every command's --timeout against hanging providers (idle, ~90 s)
  "test/typecheck.test.ts", // tsc 5.9 and 7 over the repository
  "test/runtime/compile-time/", // the builder's diagnostics and @example blocks under both compilers
  "test/plugin/examples.test.ts", // buf generate and both compilers over every example
  "test/runtime/reliability/", // fuzz, load and secrets rounds
  "test/runtime/interop/", // builds and drives the go-plugin v1.8.0 host in Go
  "test/runtime/kernel/", // the kernel's own launcher, from its source snapshot, in Go
  "test/cli/inspect-browser.test.ts", // chromium
  "test/provider-repo.test.ts", // packs the three packages and installs them
  "test/cli/init-e2e.test.ts", // packs, installs and builds a scaffold
  "test/cli/real-providers.test.ts", // packs, init, better-sqlite3 built by node-gyp, releases launched by the kernel
  "test/fresh-clone.test.ts", // clones, npm ci, the demo and the quick benchmarks
];

/** The file's place in slowTests (itself or its folder), or -1 when it is not a slow one. */
export function slowRank(file) {
  const exact = slowTests.indexOf(file);
  return exact !== -1 ? exact : slowTests.findIndex((slow) => slow.endsWith("/") && file.startsWith(slow));
}

/** `files` in the order they run: the rest in name order, then the slow ones in slowTests' order. */
export function inRunOrder(files) {
  const fast = files.filter((f) => slowRank(f) < 0);
  const slow = files.filter((f) => slowRank(f) >= 0).sort((a, b) => slowRank(a) - slowRank(b) || a.localeCompare(b));
  return [...fast, ...slow];
}

const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** What `npm test` prints before its first file finishes. */
export function startLine(files, concurrency) {
  const slow = files.filter((f) => slowRank(f) >= 0).length;
  const atATime = concurrency > 1 ? `${concurrency} at a time` : "one at a time";
  const slowPart = slow > 0 ? `, ${count(slow, "slow one", "slow ones")} (a minute or more each) last` : "";
  return `npm test: ${count(files.length, "test file", "test files")}, ${atATime}; a line as each finishes${slowPart}\n`;
}
