/**
 * supervisor-go/ cross-built for release platforms (GOOS and GOARCH from the platform key, no cgo,
 * stripped as a release would ship it), into `dir`: what the release tests hand in with
 * `--supervisor-binary <os_arch>=<file>`. Go's build cache makes a second build take a second.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./buf.js";

/** Why Go cannot build here, or undefined when `go` runs. */
export function goMissing(): string | undefined {
  const go = spawnSync("go", ["version"], { encoding: "utf8", timeout: 60_000 });
  return go.status === 0 ? undefined : "`go` is not installed (supervisor-go/ is built by the test)";
}

/** Builds the supervisor for each key (`linux_arm64`); the binaries by key. */
export function buildSupervisorGo(keys: readonly string[], dir: string): Map<string, string> {
  const built = new Map<string, string>();
  for (const key of keys) {
    const [goos, goarch] = key.split("_") as [string, string];
    const out = path.join(dir, `harness-tool-supervisor-${key}`);
    const result = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", out, "."], {
      cwd: path.join(repoRoot, "supervisor-go"),
      env: { ...process.env, CGO_ENABLED: "0", GOOS: goos, GOARCH: goarch, GOFLAGS: "-mod=readonly" },
      encoding: "utf8",
      timeout: 300_000,
    });
    if (result.status !== 0)
      throw new Error(`go build for ${key} failed: ${result.error?.message ?? ""}${result.stdout}${result.stderr}`);
    built.set(key, out);
  }
  return built;
}
