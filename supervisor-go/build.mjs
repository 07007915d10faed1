#!/usr/bin/env node
// Builds the supervisor program into its per-platform npm packages (npm/<platform>/bin/
// harness-tool-supervisor), the same bytes on every build from the same sources and Go release:
// no cgo, -trimpath, no symbol tables (-s -w), no VCS stamp, no build id, the architecture
// levels pinned. Each package's prepack runs it for its own platform.
//
//   node supervisor-go/build.mjs [<platform>...] [--out <file>]
//
// <platform> is linux-x64, linux-arm64, darwin-x64 or darwin-arm64 (default: all four);
// --out writes the one platform's binary to <file> instead of its package.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const moduleDir = path.dirname(fileURLToPath(import.meta.url));

/** The platforms a package is published for: npm's os/cpu names, Go's GOOS/GOARCH. */
export const supervisorPlatforms = {
  "linux-x64": { goos: "linux", goarch: "amd64" },
  "linux-arm64": { goos: "linux", goarch: "arm64" },
  "darwin-x64": { goos: "darwin", goarch: "amd64" },
  "darwin-arm64": { goos: "darwin", goarch: "arm64" },
};

/** Where a platform's package keeps its binary (other code relies on this path). */
export function packagedBinary(platform) {
  return path.join(moduleDir, "npm", platform, "bin", "harness-tool-supervisor");
}

/** Builds one platform's binary to `out` (atomically); throws with Go's output when the build fails. */
export function buildSupervisor(platform, out = packagedBinary(platform)) {
  const target = supervisorPlatforms[platform];
  if (target === undefined)
    throw new Error(`unknown platform ${platform} (one of ${Object.keys(supervisorPlatforms).join(", ")})`);
  mkdirSync(path.dirname(out), { recursive: true });
  const temporary = `${out}.${process.pid}.tmp`;
  const env = {
    ...process.env,
    CGO_ENABLED: "0",
    GOOS: target.goos,
    GOARCH: target.goarch,
    GOAMD64: "v1",
    GOARM64: "v8.0",
    GOFLAGS: "-mod=readonly",
    GOEXPERIMENT: "",
  };
  const args = ["build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", temporary, "."];
  const run = spawnSync("go", args, { cwd: moduleDir, env, encoding: "utf8", timeout: 300_000 });
  if (run.error !== undefined || run.status !== 0)
    throw new Error(
      `go build for ${platform} failed: ${run.error?.message ?? `exit ${run.status}`} (needs Go 1.26 or later on PATH)\n${run.stderr ?? ""}`,
    );
  chmodSync(temporary, 0o755);
  renameSync(temporary, out);
  return out;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf("--out");
  const out = outAt === -1 ? undefined : args.splice(outAt, 2)[1];
  const platforms = args.length > 0 ? args : Object.keys(supervisorPlatforms);
  if (out !== undefined && platforms.length !== 1) {
    process.stderr.write("build.mjs: --out takes one platform (name it)\n");
    process.exit(2);
  }
  try {
    for (const platform of platforms) process.stdout.write(`${buildSupervisor(platform, out)}\n`);
  } catch (error) {
    process.stderr.write(`build.mjs: ${error.message}\n`);
    process.exit(1);
  }
}
