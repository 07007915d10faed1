/**
 * Node's single-executable applications: the program (a CommonJS main script) is turned into a
 * preparation blob by `node --experimental-sea-config`, run by a Node of exactly the embedded
 * version, and the blob is injected into a copy of the platform's `node` with postject (the
 * resource `NODE_SEA_BLOB`, the fuse `NODE_SEA_FUSE_…` that Node checks; on macOS in the
 * `NODE_SEA` segment). The result runs the program and needs nothing installed.
 *
 * Without a code cache the blob is the same bytes on every machine, and postject's injection is
 * deterministic: the same sources and Node give the same executable and checksum wherever they
 * are built (a code cache would make each build differ; bench/RESULTS.md, release, says what it
 * would save).
 */
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { ReleaseError } from "./release-error.js";
import type { ReleasePlatform } from "./release-platforms.js";
import { runTool } from "./run-tool.js";

/** The fuse Node's single-executable support looks for (Node's documentation of the feature). */
const seaFuse = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/**
 * The preparation blob of `mainScript`, made by `generator` (a `node` of the embedded version that
 * runs here). `codeCache` adds V8's compiled code for the generator's own platform (the bench
 * measures what it saves; a release leaves it out, so its bytes are the same on every machine).
 */
export async function preparationBlob(
  mainScript: string,
  generator: string,
  options: { codeCache?: boolean; assets?: readonly { key: string; source: string }[] } = {},
): Promise<Buffer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-sea-"));
  try {
    writeFileSync(path.join(dir, "main.cjs"), mainScript);
    // The experimental-feature warning Node prints at every start of an executable goes to stderr; the kernel logs a
    // provider's stderr, so it is turned off.
    // Assets: the packages kept out of the program (cli/release/carried-packages.ts), unpacked on first run.
    const assets =
      options.assets && options.assets.length > 0
        ? { assets: Object.fromEntries(options.assets.map((a) => [a.key, a.source])) }
        : {};
    const config = {
      main: "main.cjs",
      output: "main.blob",
      disableExperimentalSEAWarning: true,
      useCodeCache: options.codeCache ?? false,
      ...assets,
    };
    writeFileSync(path.join(dir, "sea-config.json"), JSON.stringify(config));
    try {
      await runTool(generator, ["--experimental-sea-config", "sea-config.json"], dir);
    } catch (error) {
      throw new ReleaseError(
        `${generator} could not prepare the executable's program: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return readFileSync(path.join(dir, "main.blob"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The built-in modules of `used` (`node:`-prefixed) that `node` (a node that runs here) does not
 * have, such as `node:sqlite` before Node 22.5: the executable would fail as it loads.
 */
export async function missingBuiltins(node: string, used: readonly string[]): Promise<string[]> {
  if (used.length === 0) return [];
  // Asked with isBuiltin, not builtinModules: Node 22's list leaves out the prefix-only modules (node:sqlite).
  const asked = 'JSON.stringify(process.argv.slice(1).filter((name) => !require("node:module").isBuiltin(name)))';
  return JSON.parse(await runTool(node, ["-p", asked, ...used], os.tmpdir())) as string[];
}

/** postject's command-line entry, from this package's dependencies. */
function postjectCli(): string {
  const manifest = createRequire(import.meta.url).resolve("postject/package.json");
  return path.join(path.dirname(manifest), "dist/cli.js");
}

/**
 * Writes `outfile`: a copy of `node` with `blob` injected. postject runs in its own process: it
 * holds the whole binary in memory and prints its parser's warnings, neither of which the CLI wants.
 */
export async function writeSingleExecutable(
  node: string,
  blob: Buffer,
  platform: ReleasePlatform,
  outfile: string,
): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-inject-"));
  try {
    const blobFile = path.join(dir, "main.blob");
    writeFileSync(blobFile, blob);
    const partial = `${outfile}.partial`;
    copyFileSync(node, partial);
    chmodSync(partial, 0o755);
    const segment = platform.nodePlatform === "darwin" ? ["--macho-segment-name", "NODE_SEA"] : [];
    try {
      await runTool(
        process.execPath,
        [postjectCli(), partial, "NODE_SEA_BLOB", blobFile, "--sentinel-fuse", seaFuse, ...segment],
        dir,
      );
    } catch (error) {
      rmSync(partial, { force: true });
      const reason = error instanceof Error ? error.message : String(error);
      throw new ReleaseError(
        `postject could not inject the program into ${platform.key}'s node (${reason}): is ${node} a node binary for ${platform.key}?`,
      );
    }
    renameSync(partial, outfile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
