/**
 * The packages a release carries for each platform: the ones `bundleAsScript` kept out of the
 * program (cli/release/unbundled-packages.ts) and their dependencies, as single-executable assets.
 *
 * A native addon goes to a platform only in a build for it: this machine's own build (`build/…`)
 * for this machine's platform, checked by loading it with the `node` the executable embeds (a
 * non-N-API addon must match that Node's ABI); for another platform, a `prebuilds/<os>-<arch>/`
 * addon tagged N-API (`napi`) or with the embedded Node's ABI (`abi<N>`). A platform without one is
 * refused before anything is written, in one line naming the package, the platform and the fix.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { NodeBinary } from "./node-binaries.js";
import { ReleaseError } from "./release-error.js";
import { hostPlatformKey, type ReleasePlatform } from "./release-platforms.js";
import { runTool } from "./run-tool.js";
import {
  type CarriedFile,
  carriedFiles,
  dependencyClosure,
  type KeptPackage,
  readPackageJson,
} from "./unbundled-packages.js";

/** NODE_MODULE_VERSION by Node major version: what a non-N-API addon is built against. */
const abiByMajor: Readonly<Record<number, number>> = { 20: 115, 22: 127, 23: 131, 24: 137, 25: 141, 26: 147 };

/** The ABI of Node `version` (`24.1.0`), or undefined if unknown. */
export function abiOf(version: string): number | undefined {
  return abiByMajor[Number.parseInt(version, 10)];
}

/** Whether a prebuilt addon's file name says it loads in a Node of ABI `abi`. */
export function prebuildServes(file: string, abi: number | undefined): boolean {
  const name = path.basename(file);
  return /(^|\.)napi(\.|$)/.test(name) || (abi !== undefined && name.includes(`abi${abi}.`));
}

/**
 * Loads the addons with `node` (a node that runs here) until one loads (a package may hold other
 * `.node` files, such as better-sqlite3's SQLite test extension); rejects with the first one's
 * refusal, in one line.
 */
async function loadsIn(node: string, addons: readonly string[]): Promise<void> {
  const script = [
    "let first;",
    "for (const file of process.argv.slice(1)) {",
    "  try { process.dlopen({ exports: {} }, file); process.exit(0); }",
    '  catch (e) { first ??= String(e.message).replace(/\\s+/g, " ").replace(/ Please .*$/, ""); }',
    "}",
    "console.error(first);",
    "process.exit(1);",
  ].join("\n");
  await runTool(node, ["-e", script, ...addons], tmpdir());
}

/** The package's own addon first: the file named after it (`better-sqlite3` -> `better_sqlite3.node`). */
function ownAddonFirst(files: readonly CarriedFile[], name: string): CarriedFile[] {
  const stem = (name.split("/").pop() as string).replace(/-/g, "_");
  const named = (f: CarriedFile) => (path.basename(f.key).replace(/-/g, "_").startsWith(stem) ? 0 : 1);
  return [...files].sort((a, b) => named(a) - named(b));
}

/** Whether a per-platform package (`os`/`cpu` in its package.json) is `platform`'s, by Node's names. */
function servesPlatform(root: string, platform: ReleasePlatform): boolean {
  const { os, cpu } = readPackageJson(root);
  return (
    (os === undefined || os.includes(platform.nodePlatform)) && (cpu === undefined || cpu.includes(platform.nodeArch))
  );
}

/**
 * The per-platform packages (`os`/`cpu`) a kept package loads, installed here: those for `platform`
 * and the others (npm installs only this machine's unless told `--os`/`--cpu`).
 */
function perPlatformPackages(pkg: KeptPackage, platform: ReleasePlatform): { serving: string[]; others: string[] } {
  const roots = dependencyClosure([pkg.root])
    .map((p) => p.root)
    .filter((root) => {
      const { os, cpu } = readPackageJson(root);
      return os !== undefined || cpu !== undefined;
    });
  return {
    serving: roots.filter((r) => servesPlatform(r, platform)),
    others: roots.filter((r) => !servesPlatform(r, platform)),
  };
}

/** What a platform's executable carries, and the digest its unpacked folder is named by. */
export interface PlatformCarry {
  readonly files: readonly CarriedFile[];
  readonly digest: string;
}

/** The digest of the carried files: their keys and contents. */
export function carriedDigest(files: readonly CarriedFile[]): string {
  const hash = createHash("sha256");
  for (const file of [...files].sort((a, b) => a.key.localeCompare(b.key))) {
    hash.update(`${file.key}\0${createHash("sha256").update(readFileSync(file.source)).digest("hex")}\n`);
  }
  return hash.digest("hex");
}

/**
 * The files `platform`'s executable carries. `node` is the one it embeds; `nodeVersion` its version
 * when known (npm's), undefined for a binary the user named.
 */
export async function carriedFor(
  kept: readonly KeptPackage[],
  platform: ReleasePlatform,
  node: NodeBinary,
  nodeVersion: string | undefined,
): Promise<PlatformCarry> {
  if (kept.length === 0) return { files: [], digest: "" };
  const host = platform.key === hostPlatformKey();
  const prebuilds = `${platform.nodePlatform}-${platform.nodeArch}`;
  let files = carriedFiles(kept, { prebuilds, hostBuild: host });
  const abi = nodeVersion === undefined ? undefined : abiOf(nodeVersion);
  const embedded = nodeVersion === undefined ? `the node given for ${platform.key}` : `Node ${nodeVersion}`;
  const embeddedHere = nodeVersion === undefined ? embedded : `${platform.key}'s ${embedded}`;
  for (const pkg of kept.filter((k) => k.native && k.reason.startsWith("loads a per-platform package"))) {
    const { serving, others } = perPlatformPackages(pkg, platform);
    if (serving.length === 0) {
      throw new ReleaseError(
        `${pkg.name}@${pkg.version} loads a per-platform package and none is installed for ${platform.key}: install it (npm install --os=${platform.nodePlatform} --cpu=${platform.nodeArch}), or release without ${platform.key} (--platform)`,
      );
    }
    // Another platform's package is no use in this one's executable.
    files = files.filter((f) => !others.some((root) => f.source.startsWith(`${root}${path.sep}`)));
  }
  for (const pkg of kept.filter((k) => k.native && !k.reason.startsWith("loads a per-platform package"))) {
    const own = files.filter((f) => f.source.startsWith(`${pkg.root}${path.sep}`) && f.key.endsWith(".node"));
    const usable = host
      ? own
      : own.filter((f) => f.key.includes(`/prebuilds/${prebuilds}/`) && prebuildServes(f.key, abi));
    if (usable.length === 0) {
      const why = host
        ? "no .node file is built or prebuilt for it"
        : `it ships no prebuilds/${prebuilds}/ addon for ${embedded}${abi === undefined ? " (N-API only: its ABI is unknown)" : ""}, and its build here is for ${hostPlatformKey() ?? "this machine"}`;
      throw new ReleaseError(
        `${pkg.name}@${pkg.version} is a native addon with no build for ${platform.key}: ${why}; release without ${platform.key} (--platform), or build the release on a ${platform.key} machine`,
      );
    }
    if (host) {
      try {
        await loadsIn(
          node.file,
          ownAddonFirst(usable, pkg.name).map((f) => f.source),
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ReleaseError(
          `${pkg.name}@${pkg.version}'s native addon does not load in ${embeddedHere} (${reason}): rebuild it with that Node (npm rebuild ${pkg.name}), or embed the Node it was built for (--node ${platform.key}=<node>)`,
        );
      }
    }
  }
  return { files, digest: carriedDigest(files) };
}
