/**
 * Which Node a release may embed: the Node release lines with their end-of-life dates (the one
 * table of them; Node's own release schedule, github.com/nodejs/Release), the check that refuses an
 * end-of-life or non-LTS line, and `--node <version>` (a line, `24`, or an exact version,
 * `24.22.3`) resolved to the exact version the registry's `node-<os>-<arch>` packages hold.
 */
import type { ReleasePlatform } from "./release-platforms.js";
import { hostPlatformKey } from "./release-platforms.js";
import { runTool, ToolFailure } from "./run-tool.js";
import { UsageError } from "../terminal/usage-error.js";

/** One Node release line: its major, whether it is an LTS line, and the day it stops getting fixes. */
export interface NodeLine {
  readonly major: number;
  readonly lts: boolean;
  /** `YYYY-MM-DD`, Node's published end of life. */
  readonly endOfLife: string;
  /**
   * NODE_MODULE_VERSION (`process.versions.modules`), the ABI a native addon is built for and
   * prebuilds are named by (`node.abi137`); one per line. Given for the LTS lines only.
   */
  readonly moduleVersion?: number;
}

/**
 * The lines a release can be asked for. Odd lines are never LTS (each lives about 8 months);
 * even lines are LTS for 30 months. A line not in the table is refused until harness-tool knows it.
 */
export const nodeLines: readonly NodeLine[] = [
  { major: 16, lts: true, endOfLife: "2023-09-11", moduleVersion: 93 },
  { major: 17, lts: false, endOfLife: "2022-06-01" },
  { major: 18, lts: true, endOfLife: "2025-04-30", moduleVersion: 108 },
  { major: 19, lts: false, endOfLife: "2023-06-01" },
  { major: 20, lts: true, endOfLife: "2026-04-30", moduleVersion: 115 },
  { major: 21, lts: false, endOfLife: "2024-06-01" },
  { major: 22, lts: true, endOfLife: "2027-04-30", moduleVersion: 127 },
  { major: 23, lts: false, endOfLife: "2025-06-01" },
  { major: 24, lts: true, endOfLife: "2028-04-30", moduleVersion: 137 },
  { major: 25, lts: false, endOfLife: "2026-06-01" },
  { major: 26, lts: true, endOfLife: "2029-04-30", moduleVersion: 147 },
];

/** The NODE_MODULE_VERSION of Node `version` (`26.12.1`, `v24`), or undefined for a line the table gives none. */
export function nodeModuleVersion(version: string): number | undefined {
  const major = Number(/^v?(\d+)/.exec(version)?.[1]);
  return nodeLines.find((l) => l.major === major)?.moduleVersion;
}

/** `YYYY-MM-DD` of `day` (UTC). */
const isoDay = (day: Date) => day.toISOString().slice(0, 10);

/** The LTS lines still supported on `today`, oldest first. */
export function supportedNodeLines(today: Date = new Date()): NodeLine[] {
  return nodeLines.filter((line) => line.lts && line.endOfLife > isoDay(today));
}

/** What to do instead of a refused line: the supported LTS lines and until when. */
function supportedAdvice(today: Date): string {
  const lines = supportedNodeLines(today);
  if (lines.length === 0) return "every Node line harness-tool knows has ended: upgrade harness-tool";
  const newest = lines.at(-1) as NodeLine;
  const until = lines.map((l) => `${l.major} until ${l.endOfLife}`).join(", ");
  return `choose a supported LTS line, e.g. --node ${newest.major} (${until})`;
}

/**
 * Throws a UsageError unless Node `major` is an LTS line supported on `today`: an end-of-life
 * line names its date, an odd line says it is never LTS, an unknown line asks for a newer harness-tool.
 */
export function checkNodeLine(major: number, today: Date = new Date()): void {
  const line = nodeLines.find((l) => l.major === major);
  const advice = supportedAdvice(today);
  if (line === undefined) {
    const newest = nodeLines.at(-1) as NodeLine;
    if (major > newest.major)
      throw new UsageError(
        `Node ${major} is newer than the Node lines this harness-tool knows: upgrade harness-tool, or ${advice}`,
      );
    throw new UsageError(`Node ${major} is long past its end of life and gets no security fixes: ${advice}`);
  }
  if (!line.lts)
    throw new UsageError(
      `Node ${major} is not an LTS line (odd lines never are; it ends on ${line.endOfLife}): ${advice}`,
    );
  if (line.endOfLife <= isoDay(today)) {
    throw new UsageError(
      `Node ${major} reached its end of life on ${line.endOfLife} and gets no security fixes: ${advice}`,
    );
  }
}

/** A `--node` value that names a version (`24`, `v24`, `24.22.3`), or undefined for anything else. */
export function parseNodeVersionSpec(value: string): { major: number; exact?: string } | undefined {
  const m = /^v?(\d+)(?:\.(\d+)\.(\d+))?$/.exec(value.trim());
  if (!m) return undefined;
  const major = Number(m[1]);
  return m[2] === undefined ? { major } : { major, exact: `${major}.${Number(m[2])}.${Number(m[3])}` };
}

/** `--node` values split: at most one version, and the `<os_arch>=<file>` binaries. */
export function splitNodeOption(values: readonly string[]): { version: string | undefined; binaries: string[] } {
  const versions: string[] = [];
  const binaries: string[] = [];
  for (const value of values) {
    if (value.includes("=")) binaries.push(value);
    else if (parseNodeVersionSpec(value) !== undefined) versions.push(value);
    else
      throw new UsageError(
        `--node takes a Node version (--node 24, --node 24.22.3) or <os_arch>=<file> (--node darwin_arm64=./node); got ${JSON.stringify(value)}`,
      );
  }
  if (versions.length > 1)
    throw new UsageError(`--node names one Node version for the whole release; got ${versions.join(" and ")}`);
  return { version: versions[0], binaries };
}

/** Every version npm's registry has of `nodePackage` (`npm view <package> versions`). */
export async function npmPackageVersions(nodePackage: string): Promise<string[]> {
  let output: string;
  try {
    output = await runTool(
      process.platform === "win32" ? "npm.cmd" : "npm",
      ["view", nodePackage, "versions", "--json"],
      process.cwd(),
    );
  } catch (error) {
    const reason = error instanceof ToolFailure ? error.message : String(error);
    throw new UsageError(
      `npm could not list the versions of ${nodePackage} (${reason}): check npm's registry access, or give an exact version (--node 24.22.3)`,
    );
  }
  const listed = JSON.parse(output) as unknown;
  return (Array.isArray(listed) ? listed : [listed]).filter((v): v is string => typeof v === "string");
}

const byVersion = (a: string, b: string) => {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number)) as [number[], number[]];
  return (x[0] ?? 0) - (y[0] ?? 0) || (x[1] ?? 0) - (y[1] ?? 0) || (x[2] ?? 0) - (y[2] ?? 0);
};

/**
 * The exact Node version `--node <spec>` asks for, checked against the table: an exact version is
 * taken as it is; a line resolves to the newest release of it that every one of `nodePackages`
 * (the platforms' `node-<os>-<arch>`) has; `versionsOf` lists a package's versions (the registry's
 * by default).
 */
export async function resolveNodeVersion(
  spec: string,
  nodePackages: readonly string[],
  options: { today?: Date; versionsOf?: (nodePackage: string) => Promise<string[]> } = {},
): Promise<string> {
  const parsed = parseNodeVersionSpec(spec);
  if (parsed === undefined)
    throw new UsageError(
      `--node ${spec}: not a Node version; give a line (--node 24) or an exact version (--node 24.22.3)`,
    );
  checkNodeLine(parsed.major, options.today);
  if (parsed.exact !== undefined) return parsed.exact;
  const versionsOf = options.versionsOf ?? npmPackageVersions;
  const packages = [...new Set(nodePackages)];
  let common: string[] | undefined;
  for (const nodePackage of packages) {
    const ofLine = (await versionsOf(nodePackage)).filter(
      (v) => /^\d+\.\d+\.\d+$/.test(v) && Number(v.split(".")[0]) === parsed.major,
    );
    common = common === undefined ? ofLine : common.filter((v) => ofLine.includes(v));
  }
  const newest = (common ?? []).sort(byVersion).at(-1);
  if (newest === undefined) {
    throw new UsageError(
      `the npm registry has no Node ${parsed.major} release in ${packages.length > 1 ? `every one of ${packages.join(", ")}` : (packages[0] ?? "any node package")}: give an exact version (--node ${parsed.major}.x.y), or a binary per platform with --node <os_arch>=<file>`,
    );
  }
  return newest;
}

/**
 * The Node version `platform`'s executable embeds, for checks such as a native addon's ABI: the
 * release's version, unless the user gave a binary for this machine's platform (`--node
 * <os_arch>=<file>`), which prepares its own program and may be any version (it is asked). A binary
 * given for another platform must be the release's version (the blob is prepared by that version).
 */
export async function embeddedNodeVersionFor(
  platform: ReleasePlatform,
  release: { readonly nodeVersion: string; readonly nodeBinaries: ReadonlyMap<string, string> },
): Promise<string> {
  const given = release.nodeBinaries.get(platform.key);
  if (given === undefined || platform.key !== hostPlatformKey()) return release.nodeVersion;
  const reported = (await runTool(given, ["--version"], process.cwd())).trim();
  return reported.replace(/^v/, "");
}
