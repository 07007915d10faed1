/**
 * The supervisor program each executable of a release carries (docs/runtime.md#the-supervisor): the
 * static Go program of supervisor-go/, built per platform and shipped in the npm packages
 * `@harness-tool/supervisor-<os>-<arch>` (binary at `bin/harness-tool-supervisor`). For a
 * platform, in this order: the binary the user names (`--supervisor-binary <os_arch>=<file>`);
 * else that platform's package installed in the provider's project, at the version of the
 * harness-tool it resolves (the program speaks that runtime's channel); else that package from the
 * npm registry at the same version (`npm pack`, unpacked once into the cache the node binaries use);
 * else none, and that platform's executable keeps the Node supervisor (the release says so in one
 * line, with the fix).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { npmPack, NpmError, type PackResult } from "./node-binaries.js";
import { releasePlatforms, type ReleasePlatform } from "./release-platforms.js";
import { runTool } from "./run-tool.js";
import { UsageError } from "../terminal/usage-error.js";

/** A platform's supervisor program, ready to carry. */
export interface SupervisorBinary {
  readonly file: string;
  /** Where it came from: `@harness-tool/supervisor-linux-x64@0.1.0 (sha512-…)`, the installed package's folder, or the file named. */
  readonly origin: string;
  readonly sha256: string;
}

/** The binary's path inside its package. */
const binaryInPackage = "bin/harness-tool-supervisor";

/** The npm package holding `platform`'s supervisor program. */
export function supervisorPackage(platform: ReleasePlatform): string {
  return `@harness-tool/supervisor-${platform.nodePlatform}-${platform.nodeArch}`;
}

/** `--supervisor-binary <os_arch>=<file>` values, by platform key. */
export function parseSupervisorBinaries(values: readonly string[]): Map<string, string> {
  const given = new Map<string, string>();
  for (const value of values) {
    const at = value.indexOf("=");
    if (at <= 0 || at === value.length - 1)
      throw new UsageError(
        `--supervisor-binary takes <os_arch>=<file>, e.g. --supervisor-binary linux_arm64=./harness-tool-supervisor; got ${JSON.stringify(value)}`,
      );
    const [platform] = releasePlatforms([value.slice(0, at)]);
    const file = path.resolve(value.slice(at + 1));
    if (!existsSync(file)) throw new UsageError(`--supervisor-binary ${value}: no such file`);
    given.set((platform as ReleasePlatform).key, file);
  }
  return given;
}

/** The binary of `file` with its SHA-256. */
function binaryOf(file: string, origin: string): SupervisorBinary {
  return { file, origin, sha256: createHash("sha256").update(readFileSync(file)).digest("hex") };
}

/** The platform's package installed at or above `fromDir` at `version`, if any. */
function installedPackage(name: string, version: string, fromDir: string): SupervisorBinary | undefined {
  for (let at = path.resolve(fromDir); ; at = path.dirname(at)) {
    const root = path.join(at, "node_modules", name);
    const file = path.join(root, binaryInPackage);
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version?: string };
      // Another version may speak another channel than the runtime bundled into the program.
      if (manifest.version === version) return binaryOf(file, `${name}@${version} (${root})`);
      return undefined;
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** The package from the npm registry, unpacked once into `cacheDir`; why not, when the registry has none. */
async function fetchedPackage(
  name: string,
  version: string,
  cacheDir: string,
): Promise<SupervisorBinary | { readonly missing: string }> {
  const spec = `${name}@${version}`;
  const home = path.join(cacheDir, `${name.replace("/", "+")}-${version}`);
  const file = path.join(home, "harness-tool-supervisor");
  const integrityFile = path.join(home, "integrity");
  if (existsSync(file) && existsSync(integrityFile))
    return binaryOf(file, `${spec} (${readFileSync(integrityFile, "utf8").trim()})`);
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(path.join(cacheDir, "fetching-"));
  try {
    let packed: PackResult;
    try {
      packed = await npmPack(spec, staging);
    } catch (error) {
      if (error instanceof NpmError && (error.code === "E404" || error.code === "ETARGET"))
        return { missing: `the npm registry has no ${spec}` };
      return { missing: `npm could not fetch ${spec} (${error instanceof Error ? error.message : String(error)})` };
    }
    await runTool("tar", ["-xzf", packed.filename, `package/${binaryInPackage}`], staging);
    mkdirSync(path.join(staging, "unpacked"));
    renameSync(path.join(staging, "package", binaryInPackage), path.join(staging, "unpacked/harness-tool-supervisor"));
    writeFileSync(path.join(staging, "unpacked/integrity"), `${packed.integrity}\n`);
    try {
      renameSync(path.join(staging, "unpacked"), home);
    } catch (error) {
      // Another release unpacked the same package first: use theirs.
      if (!existsSync(file)) throw error;
    }
    return binaryOf(file, `${spec} (${packed.integrity})`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Where to look for a platform's supervisor program. */
export interface SupervisorSearch {
  /** The binaries named with `--supervisor-binary`, by platform key. */
  readonly given: ReadonlyMap<string, string>;
  /** The provider's entry's folder: where its project's packages are installed. */
  readonly projectDir: string;
  /** The version of the harness-tool the program bundles, which the package must have. */
  readonly runtimeVersion: string;
  readonly cacheDir: string;
}

/** The platform's supervisor program, or why there is none. */
export async function supervisorBinaryFor(
  platform: ReleasePlatform,
  search: SupervisorSearch,
): Promise<SupervisorBinary | { readonly missing: string }> {
  const given = search.given.get(platform.key);
  if (given !== undefined) return binaryOf(given, given);
  const name = supervisorPackage(platform);
  return (
    installedPackage(name, search.runtimeVersion, search.projectDir) ??
    (await fetchedPackage(name, search.runtimeVersion, search.cacheDir))
  );
}

/** The one line a release prints for the platforms whose executables keep the Node supervisor. */
export function nodeSupervisorWarning(missing: ReadonlyMap<string, string>): string | undefined {
  if (missing.size === 0) return undefined;
  const keys = [...missing.keys()];
  const reasons = [...new Set(missing.values())].join("; ");
  return `warning: ${keys.join(", ")} ${keys.length === 1 ? "keeps" : "keep"} the Node supervisor (a second Node process per launch) for want of the Go one: ${reasons}; install the @harness-tool/supervisor-<os>-<arch> package, or name the binary with --supervisor-binary <os_arch>=<file>`;
}
