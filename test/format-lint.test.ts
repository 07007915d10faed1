// The repository stays formatted and lint-clean under biome.jsonc: `biome ci` checks both and writes
// nothing. `npm run format` fixes the formatting; lint findings name the rule to fix or to configure.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

const biome = path.join(repoRoot, "node_modules/@biomejs/biome/bin/biome");

/** Runs `biome ci` (format and lint, no writes; warnings fail too) in `cwd` and returns its exit status and report. */
function biomeCi(cwd: string, extra: readonly string[] = []): { status: number; report: string } {
  const run = spawnSync(process.execPath, [biome, "ci", "--colors=off", "--error-on-warnings", ...extra, "."], {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  return { status: run.status ?? 1, report: `${run.stdout}${run.stderr}` };
}

it("biome ci finds nothing to format or fix in the repository", () => {
  const { status, report } = biomeCi(repoRoot);
  assert.equal(
    status,
    0,
    `biome ci found problems (\`npm run format\` fixes formatting; lint findings name their rule):\n${report}`,
  );
});

it("biome ci fails on an unformatted file and on a lint finding, and leaves generated output alone", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-biome-"));
  try {
    copyFileSync(path.join(repoRoot, "biome.jsonc"), path.join(dir, "biome.jsonc"));
    for (const folder of ["runtime", "cli", "generated/pluggableharness"])
      mkdirSync(path.join(dir, folder), { recursive: true });
    // A workspace's own package.json must not take it out from under the root configuration.
    writeFileSync(path.join(dir, "runtime/package.json"), '{ "name": "workspace", "type": "module" }\n');
    writeFileSync(path.join(dir, "runtime/unformatted.ts"), "export const answer = {value:42}\n");
    writeFileSync(
      path.join(dir, "cli/lint-finding.ts"),
      "export function same(a: number): boolean {\n  return a === a;\n}\n",
    );
    writeFileSync(path.join(dir, "generated/pluggableharness/untouched.ts"), "export const  generated = {value:1}\n");
    const { status, report } = biomeCi(dir, ["--vcs-enabled=false"]);
    assert.notEqual(status, 0, report);
    assert.match(report, /runtime\/unformatted\.ts format/, report);
    assert.match(report, /cli\/lint-finding\.ts:2:\d+ lint\/suspicious\/noSelfCompare/, report);
    assert.doesNotMatch(report, /generated\//, report);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
