/**
 * The platforms a release is built for, named as the kernel's lock file names them (`<os>_<arch>`,
 * Go's GOOS and GOARCH: `linux_amd64`, `darwin_arm64`), and where each one's `node` comes from: the
 * npm registry's `node-<os>-<arch>` packages (Node's own builds, one package per platform).
 */
import { UsageError } from "../terminal/usage-error.js";

/**
 * The Node.js every executable embeds unless `--node <version>` chooses (node-lines.ts refuses an
 * end-of-life line, this one included once it ends): the newest Node 26, the Active LTS line (24
 * is in maintenance since 2026-10, critical fixes only) with the longest support (until
 * 2029-04-30), chosen with bench/RESULTS.md's "start-up and idle RSS per Node line" (three runs):
 * a provider on it costs the least memory over Node 20 (+6.3-6.4 MB unsupervised, +13.4-13.8 MB
 * supervised, against 22's +11-16 MB and 24's +12-19 MB) and answers the kernel's first GetSchema
 * as fast as any (0.42-0.98x Node 20's; 22 and 24 within the machine's noise of it). Its price is
 * size: its binary is 143 MiB, 22 MiB more than 24's, in every executable. Its single executables
 * run one CommonJS script (script-bundle.ts).
 */
export const embeddedNodeVersion = "26.12.1";

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
          nodePackage: `node-${nodePlatform}-${nodeArch}`,
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

/** The platforms named by `--platform` values (each may list several, comma-separated); the host's by default. */
export function releasePlatforms(values: readonly string[]): ReleasePlatform[] {
  const keys = values
    .flatMap((v) => v.split(","))
    .map((k) => k.trim())
    .filter((k) => k !== "");
  if (keys.length === 0) {
    const host = hostPlatformKey();
    if (host === undefined)
      throw new UsageError(`no release platform for ${process.platform} ${process.arch}: name one with --platform`);
    keys.push(host);
  }
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
