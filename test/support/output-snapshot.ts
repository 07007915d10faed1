// Compares CLI output with a committed snapshot file under test/cli/snapshots/. A missing snapshot
// fails (so a forgotten file is noticed); UPDATE_SNAPSHOTS=1 writes it instead, for review in the diff.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./buf.js";

const snapshotDir = path.join(repoRoot, "test/cli/snapshots");

/** Asserts `actual` equals test/cli/snapshots/<name>.txt. */
export function assertSnapshot(name: string, actual: string): void {
  const file = path.join(snapshotDir, `${name}.txt`);
  if (process.env["UPDATE_SNAPSHOTS"] === "1") {
    mkdirSync(snapshotDir, { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  assert.ok(
    existsSync(file),
    `no snapshot ${path.relative(repoRoot, file)}: run with UPDATE_SNAPSHOTS=1 and review it`,
  );
  assert.equal(
    actual,
    readFileSync(file, "utf8"),
    `output differs from ${path.relative(repoRoot, file)} (UPDATE_SNAPSHOTS=1 rewrites it)`,
  );
}

/** The widest line of `text`, in characters. */
export function widestLine(text: string): number {
  return Math.max(0, ...text.split("\n").map((l) => [...l].length));
}
