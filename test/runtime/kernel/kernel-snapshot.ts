/**
 * The kernel's source snapshot as a test dependency: found (HARNESS_TOOL_KERNEL_SNAPSHOT, else
 * `../shared/kernel/pluggableharness-agent-*.tar.gz` beside the repository), unpacked once per
 * snapshot hash into the temp dir with its own Go build cache beside it, and given harness-tool's
 * Go files (test/runtime/kernel/go/*.go.txt) inside internal/pluginruntime/. Nothing of the kernel is
 * copied into this repository.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { repoRoot } from "../../support/buf.js";

/** Where harness-tool's Go files for the kernel's tree are kept. */
const goSourceDir = path.join(repoRoot, "test/runtime/kernel/go");
/** The kernel's package the files join, relative to the module root. */
const pluginRuntimeDir = "internal/pluginruntime";
/** The kernel's own integration test, which must stay as the snapshot has it. */
export const kernelIntegrationTest = `${pluginRuntimeDir}/launch_integration_test.go`;
/** The oldest Go the kernel's go.mod accepts. */
const minimumGo = [1, 26] as const;

/** A snapshot found on this machine. */
export interface KernelSnapshot {
  readonly file: string;
  /** The kernel commit, from the file name (`pluggableharness-agent-<commit>.tar.gz`). */
  readonly commit: string;
  /** sha256 of the archive, hex. */
  readonly sha256: string;
}

/** The snapshot unpacked and ready for `go test`. */
export interface KernelTree {
  readonly snapshot: KernelSnapshot;
  /** The module root (holds go.mod). */
  readonly moduleRoot: string;
  /** GOCACHE for this snapshot, kept between runs. */
  readonly goCache: string;
  readonly goVersion: string;
}

/** Why the kernel tests cannot run here. */
export class KernelUnavailable extends Error {
  override readonly name = "KernelUnavailable";
}

/** Finds the snapshot, or says why there is none. */
export function locateSnapshot(env: NodeJS.ProcessEnv = process.env): KernelSnapshot {
  const named = env.HARNESS_TOOL_KERNEL_SNAPSHOT;
  let file: string;
  if (named !== undefined && named !== "") {
    if (!existsSync(named))
      throw new KernelUnavailable(`HARNESS_TOOL_KERNEL_SNAPSHOT names ${named}, which does not exist`);
    file = path.resolve(named);
  } else {
    const dir = path.resolve(repoRoot, "../shared/kernel");
    const found = existsSync(dir)
      ? readdirSync(dir).filter((name) => /^pluggableharness-agent-.+\.tar\.gz$/.test(name))
      : [];
    if (found.length === 0) {
      throw new KernelUnavailable(
        `there is no kernel snapshot: set HARNESS_TOOL_KERNEL_SNAPSHOT or put pluggableharness-agent-<commit>.tar.gz in ${dir}`,
      );
    }
    const [only, ...others] = found;
    if (only === undefined || others.length > 0) {
      throw new KernelUnavailable(
        `${found.length} kernel snapshots in ${dir} (${found.join(", ")}): set HARNESS_TOOL_KERNEL_SNAPSHOT to one`,
      );
    }
    file = path.join(dir, only);
  }
  const commit = /pluggableharness-agent-(.+)\.tar\.gz$/.exec(path.basename(file))?.[1] ?? "unknown";
  const sha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
  return { file, commit, sha256 };
}

/**
 * The snapshot and Go to run it with, or why this machine cannot: a skip, or a failure when the
 * kernel is required (HARNESS_TOOL_REQUIRE_INTEROP=1, as .ci/run sets it). `test` names the test.
 */
export function kernelOrSkip(
  test: string,
): { snapshot: KernelSnapshot; goVersion: string } | { skip: string } | { failure: Error } {
  try {
    return { snapshot: locateSnapshot(), goVersion: goVersion() };
  } catch (error) {
    if (!(error instanceof KernelUnavailable))
      return { failure: error instanceof Error ? error : new Error(String(error)) };
    if (process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1")
      return {
        failure: new Error(`the ${test} test must run here (HARNESS_TOOL_REQUIRE_INTEROP=1), but ${error.message}`),
      };
    return { skip: error.message };
  }
}

/** The machine's Go version (`go1.26.8`), or why it cannot build the kernel. */
export function goVersion(): string {
  const result = spawnSync("go", ["env", "GOVERSION"], {
    encoding: "utf8",
    env: { ...process.env, GOTOOLCHAIN: "local" },
  });
  if (result.error || result.status !== 0) {
    throw new KernelUnavailable("`go` is not installed (the kernel needs Go >= 1.26 and the Go module proxy)");
  }
  const version = result.stdout.trim();
  const [major, minor] = (/^go(\d+)\.(\d+)/.exec(version)?.slice(1) ?? []).map(Number);
  if (
    major === undefined ||
    minor === undefined ||
    major < minimumGo[0] ||
    (major === minimumGo[0] && minor < minimumGo[1])
  ) {
    throw new KernelUnavailable(`${version} is too old for the kernel's go.mod (go ${minimumGo.join(".")})`);
  }
  return version;
}

/** One member of the archive, as bytes. */
function archiveMember(snapshot: KernelSnapshot, member: string): Buffer {
  const result = spawnSync("tar", ["-xOzf", snapshot.file, member], { maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0)
    throw new Error(`tar could not read ${member} from ${snapshot.file}: ${String(result.stderr)}`);
  return result.stdout;
}

/** The single top-level folder of an unpacked archive, which must hold go.mod. */
function moduleRootIn(dir: string): string {
  const [only, ...others] = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  const root = only !== undefined && others.length === 0 ? path.join(dir, only.name) : dir;
  if (!existsSync(path.join(root, "go.mod"))) throw new Error(`the kernel snapshot unpacked into ${dir} has no go.mod`);
  return root;
}

/**
 * Unpacks the snapshot into `<tmp>/harness-tool-kernel-<snapshot sha>/<variant>-<checkout>` unless
 * an earlier run did (one tree per checkout: the Go files and the fixture's command line installed
 * in it name this checkout's files; one per variant, so test files that add their own Go files
 * can run side by side); checks that the kernel's integration test there is the snapshot's, byte
 * for byte.
 */
export function unpackKernel(snapshot: KernelSnapshot, version: string, variant = "tree"): KernelTree {
  const base = path.join(os.tmpdir(), `harness-tool-kernel-${snapshot.sha256.slice(0, 16)}`);
  const tree = path.join(base, `${variant}-${createHash("sha256").update(repoRoot).digest("hex").slice(0, 12)}`);
  mkdirSync(base, { recursive: true });
  if (!existsSync(tree)) {
    const staging = mkdtempSync(path.join(base, "unpacking-"));
    const untar = spawnSync("tar", ["-xzf", snapshot.file, "-C", staging], { encoding: "utf8" });
    if (untar.status !== 0) throw new Error(`tar -xzf ${snapshot.file} failed: ${untar.stderr}`);
    try {
      renameSync(staging, tree);
    } catch (error) {
      // Another run unpacked the same snapshot first: use theirs.
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(tree)) throw error;
    }
  }
  const moduleRoot = moduleRootIn(tree);
  const member = `${path.relative(tree, moduleRoot)}/${kernelIntegrationTest}`.replace(/^\//, "");
  const unpacked = path.join(moduleRoot, kernelIntegrationTest);
  if (!existsSync(unpacked) || !archiveMember(snapshot, member).equals(readFileSync(unpacked))) {
    throw new Error(`${unpacked} differs from the snapshot's: remove ${base} and run again`);
  }
  return { snapshot, moduleRoot, goCache: path.join(base, "go-build"), goVersion: version };
}

/** Writes a file through a temporary name, so a concurrent run never reads half of it. */
function writeAtomically(file: string, content: string | Buffer): void {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, content);
  renameSync(partial, file);
}

/**
 * Adds harness-tool's Go test files to internal/pluginruntime/ (dropping any left by an older
 * run) and replaces testdata/plugin's main.go by the exec shim, with the TypeScript fixture's
 * command line beside it.
 */
export function installHarnessGoFiles(tree: KernelTree, fixtureArgv: readonly string[]): void {
  const runtimeDir = path.join(tree.moduleRoot, pluginRuntimeDir);
  const ours = readdirSync(goSourceDir).filter((name) => /^harness_tool_.*_test\.go\.txt$/.test(name));
  const wanted = new Set(ours.map((name) => name.replace(/\.txt$/, "")));
  for (const stale of readdirSync(runtimeDir).filter((name) => name.startsWith("harness_tool_") && !wanted.has(name))) {
    rmSync(path.join(runtimeDir, stale));
  }
  for (const name of ours)
    writeAtomically(path.join(runtimeDir, name.replace(/\.txt$/, "")), readFileSync(path.join(goSourceDir, name)));
  const fixtureDir = path.join(runtimeDir, "testdata/plugin");
  writeAtomically(path.join(fixtureDir, "provider-argv.json"), `${JSON.stringify(fixtureArgv)}\n`);
  writeAtomically(path.join(fixtureDir, "main.go"), readFileSync(path.join(goSourceDir, "fixture-exec-main.go.txt")));
}

/**
 * The environment `go test` runs in: what the kernel's launcher copies into every plugin (PATH,
 * HOME, TMPDIR), the Go toolchain's own settings and proxies, the snapshot's build cache, and
 * `extra`; not the rest of this process's environment (NODE_OPTIONS would reach the providers
 * through go-plugin, which appends its host's environment).
 */
export function goTestEnvironment(tree: KernelTree, extra: { readonly [name: string]: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (["PATH", "HOME", "TMPDIR"].includes(name) || name.startsWith("GO") || /^(https?|no)_proxy$/i.test(name))
      env[name] = value;
  }
  return {
    ...env,
    GOCACHE: tree.goCache,
    GOTOOLCHAIN: "local",
    GOFLAGS: [env.GOFLAGS, "-mod=readonly"].filter(Boolean).join(" "),
    ...extra,
  };
}

/**
 * Why the kernel cannot run here (no snapshot, no Go), for a test's `skip`; false when it can. With
 * HARNESS_TOOL_REQUIRE_INTEROP=1 the reason is thrown instead: the test fails.
 */
export function kernelSkip(): string | false {
  try {
    locateSnapshot();
    goVersion();
    return false;
  } catch (error) {
    if (!(error instanceof KernelUnavailable)) throw error;
    if (process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1")
      throw new Error(`${error.message} (HARNESS_TOOL_REQUIRE_INTEROP=1)`);
    return error.message;
  }
}

/** Runs `go <args>` in the kernel's tree with `env`; resolves with its stdout, stderr and exit code. */
export function runGo(
  tree: KernelTree,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, { cwd: tree.moduleRoot, env, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({ stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), code }),
    );
  });
}

/**
 * Runs `go test -tags integration -count=1 -json <args>` in the kernel's tree (-count=1: the
 * providers must really run, never a cached result).
 */
export function runGoTest(
  tree: KernelTree,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return runGo(tree, ["test", "-tags", "integration", "-count=1", "-json", ...args], env);
}
