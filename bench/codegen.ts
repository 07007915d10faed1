/**
 * Suite 1, code generation: `buf generate` with protoc-gen-harness-tool as its only plugin against
 * one with protoc-gen-es as its only plugin, on the same synthetic protos, for each size in both
 * layouts. Wall time of the whole `buf generate`, and the plugin's own peak RSS (GNU time wraps
 * the plugin command inside buf.gen.yaml; buf's own peak is reported beside it).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bufExecutable, repoBin, type BenchWorkspace } from "./bench-workspace.js";
import { pluginCommand } from "./harness-tool-plugin.js";
import { hottestFunctions, selfTimeByOwner } from "./cpu-profile.js";
import { gnuTime, median, parsePeakRss, roundRobinOrder, runTimed } from "./measure.js";
import { absolute, compared, formatKb, formatMs, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";
import { scaffoldPluginOptions } from "../cli/templates/scaffold-files.js";
import { protoLayouts, writeSyntheticProtos, type ProtoLayout } from "./synthetic-protos.js";

type ContenderId = "harness-tool" | "protoc-gen-es";

interface Contender {
  readonly id: ContenderId;
  /** The plugin command, before the GNU time wrapper. */
  readonly argv: readonly string[];
  readonly opts: readonly string[];
}

/** One contender's runs on one case. */
interface CaseRuns {
  wallMs: number[];
  pluginRssKb: number[];
  bufRssKb: number[];
  timedOut: boolean;
  failure: string | undefined;
  outputBytes: number;
  outputFiles: number;
}

const rewriteImports = [
  "rewrite_imports=./harnesstool/**/*_pb.js:harness-tool/generated",
  "rewrite_imports=./pluggableharness/**/*_pb.js:harness-tool/generated",
];

/** The workspace's buf.yaml: the synthetic module plus the package's protos as a second module. */
export function writeBufWorkspace(root: string): void {
  writeFileSync(
    path.join(root, "buf.yaml"),
    "version: v2\nmodules:\n  - path: proto\n  - path: node_modules/@harness-tool/protoc-gen-harness-tool/proto\n",
  );
}

function genTemplate(c: Contender, out: string, rssFile: string): string {
  const local = [gnuTime, "-a", "-f", "%M", "-o", rssFile, ...c.argv];
  return [
    "version: v2",
    "inputs:",
    "  - directory: proto",
    "plugins:",
    `  - local: ${JSON.stringify(local)}`,
    `    out: ${out}`,
    "    strategy: all",
    ...(c.opts.length > 0 ? ["    opt:", ...c.opts.map((o) => `      - ${o}`)] : []),
    "clean: true",
    "",
  ].join("\n");
}

function treeSize(dir: string): { bytes: number; files: number } {
  if (!existsSync(dir)) return { bytes: 0, files: 0 };
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      files++;
      bytes += statSync(path.join(entry.parentPath, entry.name)).size;
    }
  }
  return { bytes, files };
}

async function measureCase(
  ws: BenchWorkspace,
  contenders: readonly Contender[],
  n: number,
  layout: ProtoLayout,
  runs: number,
  timeoutMs: number,
  slowMs: number,
  context: SuiteContext,
): Promise<Map<ContenderId, CaseRuns>> {
  rmSync(path.join(ws.root, "proto"), { recursive: true, force: true });
  writeSyntheticProtos(path.join(ws.root, "proto"), n, layout);
  const env = { ...process.env, PATH: `${repoBin}${path.delimiter}${process.env["PATH"] ?? ""}` };
  const buf = bufExecutable();
  // Warm buf's cache (well-known types, module resolution) outside the timed runs.
  const warm = await runTimed(buf, ["build"], { cwd: ws.root, env, timeoutMs: 60_000, measureRss: false });
  const results = new Map<ContenderId, CaseRuns>();
  for (const c of contenders)
    results.set(c.id, {
      wallMs: [],
      pluginRssKb: [],
      bufRssKb: [],
      timedOut: false,
      failure: undefined,
      outputBytes: 0,
      outputFiles: 0,
    });
  if (warm.status !== 0) {
    for (const r of results.values()) r.failure = `buf build failed: ${warm.stderr.slice(0, 400)}`;
    return results;
  }
  for (let round = 0; round < runs; round++) {
    for (const c of roundRobinOrder(contenders, round)) {
      const r = results.get(c.id) as CaseRuns;
      if (r.failure !== undefined || r.timedOut) continue;
      // A run slower than slowMs (protoc-gen-es on 500 tools in one file) is not repeated.
      if (r.wallMs.length > 0 && (r.wallMs[0] as number) > slowMs) continue;
      const out = path.join("out", c.id);
      const rssFile = path.join(ws.root, `plugin-rss-${c.id}.txt`);
      rmSync(rssFile, { force: true });
      const template = path.join(ws.root, `buf.gen.${c.id}.yaml`);
      writeFileSync(template, genTemplate(c, out, rssFile));
      context.log(`codegen ${layout} ${n} tools: ${c.id} run ${round + 1}/${runs}`);
      const run = await runTimed(buf, ["generate", "--template", template], { cwd: ws.root, env, timeoutMs });
      if (run.timedOut) {
        r.timedOut = true;
        continue;
      }
      if (run.status !== 0) {
        r.failure = `buf generate exited ${run.status}: ${run.stderr.trim().slice(0, 600)}`;
        continue;
      }
      r.wallMs.push(run.wallMs);
      if (run.peakRssKb !== undefined) r.bufRssKb.push(run.peakRssKb);
      const pluginRss = existsSync(rssFile) ? parsePeakRss(readFileSync(rssFile, "utf8")) : undefined;
      if (pluginRss !== undefined) r.pluginRssKb.push(pluginRss);
      const size = treeSize(path.join(ws.root, out));
      r.outputBytes = size.bytes;
      r.outputFiles = size.files;
    }
  }
  return results;
}

function wallValue(r: CaseRuns, timeoutMs: number): { ms: number; lowerBound: boolean } | undefined {
  if (r.timedOut && r.wallMs.length === 0) return { ms: timeoutMs, lowerBound: true };
  if (r.wallMs.length === 0) return undefined;
  return { ms: median(r.wallMs), lowerBound: false };
}

/**
 * One extra, untimed `buf generate` with the plugin under `node --cpu-prof`; returns the
 * hottest functions as one note line.
 */
async function profilePlugin(ws: BenchWorkspace, c: Contender, label: string): Promise<string> {
  const dir = path.join(ws.root, `cpu-profile-${c.id}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const [node, ...rest] = c.argv;
  const argv = node === process.execPath ? [node, "--cpu-prof", `--cpu-prof-dir=${dir}`, ...rest] : c.argv;
  const template = path.join(ws.root, `buf.gen.profile.yaml`);
  writeFileSync(
    template,
    genTemplate({ ...c, argv }, path.join("out", `profile-${c.id}`), path.join(ws.root, "profile-rss.txt")),
  );
  const env = { ...process.env, PATH: `${repoBin}${path.delimiter}${process.env["PATH"] ?? ""}` };
  const run = await runTimed(bufExecutable(), ["generate", "--template", template], {
    cwd: ws.root,
    env,
    timeoutMs: 600_000,
    measureRss: false,
  });
  if (run.status !== 0) return `${c.id} profile, ${label}: buf generate failed`;
  const list = (hot: readonly { name: string; selfMs: number; share: number }[]) =>
    hot.map((h) => `${h.name} ${h.selfMs.toFixed(0)} ms (${(h.share * 100).toFixed(0)}%)`).join("; ");
  return `${c.id} CPU profile, ${label}: self time by owner: ${list(selfTimeByOwner(dir, 6))}. Hottest functions: ${list(hottestFunctions(dir, 6))}`;
}

/** The code-generation suite. */
export const codegenSuite: Suite = {
  id: "codegen",
  title: "1. Code generation (buf generate, one plugin each)",
  async run(context): Promise<SuiteReport> {
    const runs = context.runs ?? (context.quick ? 1 : 5);
    const timeoutMs = (context.quick ? 60 : 300) * 1000;
    const slowMs = 30_000;
    const figures: Figure[] = [];
    const notes: string[] = [];
    const failures: string[] = [];
    const { ws, build } = await context.packagedWorkspace();
    writeBufWorkspace(ws.root);
    const ours = pluginCommand(build.ok ? ws : undefined);
    const es: Contender = {
      id: "protoc-gen-es",
      argv: ["protoc-gen-es"],
      opts: ["target=ts", "import_extension=js", ...rewriteImports],
    };
    const contenders: Contender[] = [es];
    // The options a provider repository gives it: what `harness-tool init` writes.
    if (ours.ok) contenders.unshift({ id: "harness-tool", argv: ours.argv, opts: scaffoldPluginOptions() });
    else failures.push(`protoc-gen-harness-tool: ${ours.why}`);
    const medians = new Map<string, number>();
    for (const layout of protoLayouts) {
      for (const n of context.sizes) {
        const results = await measureCase(ws, contenders, n, layout, runs, timeoutMs, slowMs, context);
        const label = `${layout}, ${n} tools`;
        const ourContender = contenders.find((c) => c.id === "harness-tool");
        if (context.profile && ourContender) {
          context.log(`codegen ${label}: profiling harness-tool`);
          notes.push(await profilePlugin(ws, ourContender, label));
        }
        const esRuns = results.get("protoc-gen-es") as CaseRuns;
        const esWall = wallValue(esRuns, timeoutMs);
        const ourRuns = results.get("harness-tool");
        const ourWall = ourRuns ? wallValue(ourRuns, timeoutMs) : undefined;
        if (esWall) medians.set(`protoc-gen-es ${layout} ${n}`, esWall.ms);
        if (ourWall && !ourWall.lowerBound) medians.set(`harness-tool ${layout} ${n}`, ourWall.ms);
        const esText = esWall ? (esWall.lowerBound ? `> ${formatMs(esWall.ms)}` : formatMs(esWall.ms)) : "failed";
        const runsNote = (r: CaseRuns) => `${r.wallMs.length} run${r.wallMs.length === 1 ? "" : "s"}`;
        if (!ourRuns) {
          figures.push(absolute(`protoc-gen-es wall, ${label}`, esText, undefined, esRuns.failure ?? runsNote(esRuns)));
        } else if (!ourWall || !esWall) {
          figures.push(failedFigure(`wall, ${label}`, ourRuns.failure ?? esRuns.failure ?? "failed"));
        } else if (ourWall.lowerBound) {
          figures.push(
            absolute(
              `wall, ${label}`,
              `> ${formatMs(ourWall.ms)}`,
              { target: "≤ 1.5× protoc-gen-es", ok: false },
              "harness-tool hit the time limit",
            ),
          );
        } else {
          const note = esWall.lowerBound
            ? `protoc-gen-es hit the ${formatMs(timeoutMs)} limit: the ratio is an upper bound`
            : `${runsNote(ourRuns)} / ${runsNote(esRuns)}; output ${ourRuns.outputFiles} files ${(ourRuns.outputBytes / 1024).toFixed(0)} KiB vs ${esRuns.outputFiles} files ${(esRuns.outputBytes / 1024).toFixed(0)} KiB`;
          figures.push(
            compared(
              `wall, ${label}`,
              ourWall.ms,
              formatMs,
              { label: esWall.lowerBound ? "protoc-gen-es >" : "protoc-gen-es", value: esWall.ms },
              1.5,
              note,
            ),
          );
        }
        const esRss = Math.max(...esRuns.pluginRssKb);
        const ourRss = ourRuns ? Math.max(...ourRuns.pluginRssKb) : Number.NaN;
        const bufNote = `largest process of the whole buf tree: ${formatKb(ourRuns ? Math.max(...ourRuns.bufRssKb) : undefined)} vs ${formatKb(Math.max(...esRuns.bufRssKb))}`;
        if (ourRuns && Number.isFinite(ourRss) && Number.isFinite(esRss)) {
          figures.push(
            compared(
              `plugin peak RSS, ${label}`,
              ourRss,
              (kb) => formatKb(kb),
              { label: "protoc-gen-es", value: esRss },
              undefined,
              bufNote,
            ),
          );
        } else if (Number.isFinite(esRss)) {
          figures.push(absolute(`protoc-gen-es plugin peak RSS, ${label}`, formatKb(esRss)));
        }
      }
    }
    // Growth with tools: 500 tools at most 6× the cost of 100 (linear, with a fixed cost).
    for (const layout of protoLayouts) {
      for (const id of ["harness-tool", "protoc-gen-es"] as const) {
        const small = medians.get(`${id} ${layout} 100`);
        const large = medians.get(`${id} ${layout} 500`);
        if (small === undefined || large === undefined) continue;
        const figure = compared(
          `${id} growth 100→500 tools, ${layout}`,
          large,
          formatMs,
          { label: "100 tools", value: small },
          id === "harness-tool" ? 6 : undefined,
        );
        figures.push(figure);
      }
    }
    if (!context.sizes.includes(100) || !context.sizes.includes(500))
      notes.push("growth 100→500 tools: needs sizes 100 and 500");
    return {
      id: "codegen",
      title: this.title,
      method: [
        `Synthetic providers from bench/synthetic-protos.ts (each tool: a request of 7 fields with a nested message, a nested enum, repeated scalars and messages, comments; a response of 4 fields), one-file (one service) and many-files (files of ≤10 tools, each with its own service).`,
        `\`${path.basename(bufExecutable())} generate\` (native binary, strategy all) with one plugin: protoc-gen-es 2.17.0 (target=ts, import_extension=js, rewrite_imports to harness-tool/generated) or protoc-gen-harness-tool (${ours.ok ? ours.describe : "not available"}, the bundle \`npm run build\` makes; ${scaffoldPluginOptions().join(", ")}, as \`harness-tool init\` writes).`,
        `Median wall of ${runs} run(s) per contender, round-robin; a contender whose first run exceeds ${formatMs(slowMs)} is run once; limit ${formatMs(timeoutMs)} per run.`,
        `Peak RSS: GNU time (%M, the largest single process) wrapped around the plugin inside buf.gen.yaml, so it is the plugin's own peak; GNU time around buf (the largest process of the whole tree, plugin included) is in the note.`,
      ],
      figures,
      notes,
      failures,
    };
  },
};
