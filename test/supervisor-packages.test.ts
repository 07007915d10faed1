// The supervisor program's per-platform packages (supervisor-go/npm/<platform>): each names its
// os and cpu, ships only bin/harness-tool-supervisor, is at the runtime's version and is one of the
// runtime's exact-pinned optionalDependencies (the lockfile marks them optional, so an install
// where none is published still passes); the build script makes the same bytes every build, and
// a packed package carries its platform's binary, executable. Skips the builds without `go`
// unless HARNESS_TOOL_REQUIRE_INTEROP is "1".
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

const platforms = {
  "linux-x64": ["linux", "x64"],
  "linux-arm64": ["linux", "arm64"],
  "darwin-x64": ["darwin", "x64"],
  "darwin-arm64": ["darwin", "arm64"],
} as const;
const readJson = (file: string) => JSON.parse(readFileSync(path.join(repoRoot, file), "utf8"));
const runtime = readJson("runtime/package.json");
const go = spawnSync("go", ["version"], { encoding: "utf8" });
const skip = go.status !== 0 && process.env.HARNESS_TOOL_REQUIRE_INTEROP !== "1" ? "`go` is not installed" : false;
const build = path.join(repoRoot, "supervisor-go/build.mjs");

it("each platform package names its os and cpu and ships only its binary, at the runtime's version", () => {
  for (const [platform, [os, cpu]] of Object.entries(platforms)) {
    const pkg = readJson(`supervisor-go/npm/${platform}/package.json`);
    assert.equal(pkg.name, `@harness-tool/supervisor-${platform}`);
    assert.equal(pkg.version, runtime.version, pkg.name);
    assert.deepEqual([pkg.os, pkg.cpu], [[os], [cpu]], pkg.name);
    assert.deepEqual(pkg.files, ["bin/harness-tool-supervisor"], pkg.name);
    assert.equal(pkg.scripts.prepack, `node ../../build.mjs ${platform}`, pkg.name);
  }
});

it("the runtime lists the four packages as exact-pinned optionalDependencies, optional in the lockfile", () => {
  const names = Object.keys(platforms).map((p) => `@harness-tool/supervisor-${p}`);
  assert.deepEqual(runtime.optionalDependencies, Object.fromEntries(names.map((n) => [n, runtime.version])));
  const lock = readJson("package-lock.json");
  for (const name of names) {
    const entry = lock.packages[`node_modules/${name}`];
    assert.ok(entry, `${name} is in package-lock.json (npm ci needs it to be in sync)`);
    assert.equal(entry.optional, true, `${name} is optional in the lockfile`);
    assert.equal(entry.version, runtime.version);
  }
  assert.ok(!readJson("package.json").workspaces.some((w: string) => w.startsWith("supervisor-go")), "not workspaces");
});

it("build.mjs writes the same bytes on every build", { skip }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-supervisor-build-"));
  try {
    const sums = [1, 2].map((n) => {
      const out = path.join(dir, `build-${n}`);
      const run = spawnSync(process.execPath, [build, "linux-arm64", "--out", out], {
        encoding: "utf8",
        timeout: 300_000,
      });
      assert.equal(run.status, 0, run.stderr);
      return createHash("sha256").update(readFileSync(out)).digest("hex");
    });
    assert.equal(sums[0], sums[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("a packed platform package holds bin/harness-tool-supervisor, executable, built by prepack", { skip }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-supervisor-pack-"));
  try {
    const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", dir], {
      cwd: path.join(repoRoot, "supervisor-go/npm/linux-x64"),
      encoding: "utf8",
      timeout: 300_000,
    });
    assert.equal(pack.status, 0, pack.stderr);
    // prepack's own output comes first on stdout; the JSON report is the rest.
    const [{ filename, files }] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("[\n")));
    assert.deepEqual(files.map((f: { path: string; mode: number }) => [f.path, f.mode & 0o111]).sort(), [
      ["bin/harness-tool-supervisor", 0o111],
      ["package.json", 0],
    ]);
    const listing = spawnSync("tar", ["-tvzf", path.join(dir, filename)], { encoding: "utf8" });
    assert.match(listing.stdout, /^-rwxr-xr-x .* package\/bin\/harness-tool-supervisor$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
