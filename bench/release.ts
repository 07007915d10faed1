/**
 * Suite 10, release: what `harness-tool release` ships beside what `harness-tool bundle` ships, for
 * the exec example (a real provider with its top-level `await serve(…)`): the files' sizes, and
 * start-up (spawn → handshake line, spawn → first GetSchema reply) of the single executable, the
 * executable with V8's code cache in its blob (what a release leaves out to stay reproducible),
 * the single-file `.mjs` on node, and the bundle's `dist/provider.mjs` on node.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../cli/main.js";
import { nodeBinaryFor } from "../cli/release/node-binaries.js";
import { embeddedNodeVersion, hostPlatformKey, releasePlatforms } from "../cli/release/release-platforms.js";
import { repoRoot } from "./bench-workspace.js";
import { median, roundRobinOrder } from "./measure.js";
import { PluginConnection } from "./plugin-connection.js";
import { absolute, compared, formatMs, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

const entry = path.join(repoRoot, "examples/exec/src/main.ts");

interface Contender {
  readonly id: string;
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
}

/** Writes what `main` prints nowhere: the suite reports the figures itself. */
const silent = { write: () => true } as unknown as NodeJS.WriteStream;

/** Runs the CLI; throws with what it said on failure. */
export async function cli(argv: readonly string[]): Promise<void> {
  let said = "";
  const err = {
    write: (text: string) => {
      said += text;
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  const code = await main(argv, { out: silent, err });
  if (code !== 0) throw new Error(`harness-tool ${argv[0]} exited ${code}: ${said.trim()}`);
}

/** One launch: the handshake and the first GetSchema, then an orderly stop. */
async function launchOnce(c: Contender): Promise<{ handshakeMs: number; schemaMs: number }> {
  const conn = await PluginConnection.launch(c.command, c.args, {
    timeoutMs: 30_000,
    connect: true,
    stop: "controller",
  });
  try {
    await conn.getSchema();
    return { handshakeMs: conn.handshakeMs, schemaMs: conn.elapsedMs() };
  } finally {
    await conn.close();
  }
}

/** Builds the bundle, the release and the code-cached executable into `dir`; the contenders and the sizes. */
async function buildContenders(dir: string, host: string): Promise<{ contenders: Contender[]; sizes: Figure[] }> {
  const bundleOut = path.join(dir, "bundle/provider.mjs");
  await cli(["bundle", entry, "--outfile", bundleOut]);
  const releaseDir = path.join(dir, "release");
  await cli(["release", entry, "--platform", host, "--out-dir", releaseDir]);
  const files = readdirSync(releaseDir);
  const executable = path.join(releaseDir, files.find((f) => f.endsWith(`_${host}`)) as string);
  const moduleFile = path.join(releaseDir, files.find((f) => f.endsWith(".mjs")) as string);
  const cachedDir = path.join(dir, "code-cached");
  await cli(["release", entry, "--platform", host, "--code-cache", "--out-dir", cachedDir]);
  const cached = path.join(cachedDir, path.basename(executable));
  const [platform] = releasePlatforms([host]);
  const node = await nodeBinaryFor(platform as NonNullable<typeof platform>, embeddedNodeVersion);

  const bytes = (file: string) => statSync(file).size;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const bundleBytes =
    bytes(bundleOut) +
    bytes(path.join(dir, "bundle/provider.bundle.mjs")) +
    bytes(path.join(dir, "bundle/provider.bundle.mjs.map"));
  const sizes: Figure[] = [
    compared(`single executable (${host}, node ${embeddedNodeVersion}): size`, bytes(executable), mib, {
      label: `node ${embeddedNodeVersion} itself`,
      value: bytes(node.file),
    }),
    compared("single executable with code cache: size", bytes(cached), mib, {
      label: "without",
      value: bytes(executable),
    }),
    compared("single-file .mjs (program and source map inline): size", bytes(moduleFile), mib, {
      label: "bundle (launcher, bundle, map)",
      value: bundleBytes,
    }),
  ];
  const contenders: Contender[] = [
    { id: "bundle", label: "bundle on node (dist/provider.mjs)", command: process.execPath, args: [bundleOut] },
    { id: "executable", label: "single executable", command: executable, args: [] },
    { id: "cached", label: "single executable with code cache", command: cached, args: [] },
    { id: "module", label: "single-file .mjs on node", command: process.execPath, args: [moduleFile] },
  ];
  return { contenders, sizes };
}

/** The release suite. */
export const releaseSuite: Suite = {
  id: "release",
  title: "10. Release (single executable and .mjs beside the bundle: size, start-up)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const runs = context.runs ?? (context.quick ? 3 : 20);
    const figures: Figure[] = [];
    const notes: string[] = [];
    const host = hostPlatformKey();
    const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-bench-release-"));
    try {
      if (host === undefined) throw new Error(`no release platform for ${process.platform} ${process.arch}`);
      context.log("release: building the bundle, the release and the code-cached executable");
      const { contenders, sizes } = await buildContenders(dir, host);
      figures.push(...sizes);
      const samples = new Map(contenders.map((c) => [c.id, { handshake: [] as number[], schema: [] as number[] }]));
      // Round 0 warms the page cache and is not counted.
      for (let round = 0; round <= runs; round++) {
        context.log(`release round ${round}/${runs}${round === 0 ? " (warm-up)" : ""}`);
        for (const c of roundRobinOrder(contenders, round)) {
          const r = await launchOnce(c);
          if (round === 0) continue;
          samples.get(c.id)?.handshake.push(r.handshakeMs);
          samples.get(c.id)?.schema.push(r.schemaMs);
        }
      }
      const bundle = samples.get("bundle") as { handshake: number[]; schema: number[] };
      for (const c of contenders.filter((x) => x.id !== "bundle")) {
        const s = samples.get(c.id) as { handshake: number[]; schema: number[] };
        figures.push(
          compared(`${c.label}: spawn → handshake`, median(s.handshake), formatMs, {
            label: "bundle",
            value: median(bundle.handshake),
          }),
        );
        figures.push(
          compared(`${c.label}: spawn → GetSchema reply`, median(s.schema), formatMs, {
            label: "bundle",
            value: median(bundle.schema),
          }),
        );
      }
      figures.push(absolute("bundle on node: spawn → handshake", formatMs(median(bundle.handshake))));
    } catch (error) {
      figures.push(failedFigure("release", error instanceof Error ? error.message : String(error)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        "The exec example (examples/exec/src/main.ts) built three ways by the CLI: `harness-tool bundle` (dist/provider.mjs, which loads provider.bundle.mjs with its source map, on this node), `harness-tool release --platform <this machine's>` (the single executable, and the single-file .mjs on this node), and the same executable built with `--code-cache` (V8's code cache in its blob, which a release leaves out by default: with it the bytes differ on every build).",
        `Each launch spawns the contender with the kernel's handshake environment (PATH, HOME, TMPDIR and go-plugin's variables), times the first stdout line and the first GetSchema reply, then stops it with go-plugin's Shutdown; median of ${runs} launches each, round-robin, after one uncounted warm-up round.`,
        "Sizes: the executable beside the node binary it is built from; the .mjs beside the bundle's three files.",
      ],
      figures,
      notes,
    };
  },
};
