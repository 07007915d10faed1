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
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { cachedPackageFile, NpmError, PackFailure } from "./node-binaries.js";
import { platformFiles, type ReleasePlatform } from "./release-platforms.js";
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

/** `--supervisor-binary <os_arch>=<file>` values, by platform key, each an existing file. */
export function parseSupervisorBinaries(values: readonly string[]): Map<string, string> {
  const given = platformFiles("--supervisor-binary", "linux_arm64=./harness-tool-supervisor", values);
  for (const [key, file] of given) {
    if (!existsSync(file)) throw new UsageError(`--supervisor-binary ${key}=${file}: no such file`);
    given.set(key, path.resolve(file));
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

/** The package from the npm registry, unpacked once into `cacheDir`; why not, when npm cannot give it. */
async function fetchedPackage(
  name: string,
  version: string,
  cacheDir: string,
): Promise<SupervisorBinary | { readonly missing: string }> {
  const spec = `${name}@${version}`;
  const home = path.join(cacheDir, `${name.replace("/", "+")}-${version}`);
  try {
    const { file, integrity } = await cachedPackageFile(
      spec,
      binaryInPackage,
      home,
      "harness-tool-supervisor",
      cacheDir,
    );
    return binaryOf(file, `${spec} (${integrity})`);
  } catch (error) {
    if (!(error instanceof PackFailure)) throw error;
    const npm = error.cause;
    if (npm instanceof NpmError && (npm.code === "E404" || npm.code === "ETARGET"))
      return { missing: `the npm registry has no ${spec}` };
    return { missing: `npm could not fetch ${spec} (${error.message.replace(/\.$/, "")})` };
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
