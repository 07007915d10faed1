/**
 * Suite 2, type-check cost: `tsc --noEmit -p` on the corpora of bench/typecheck-corpus.ts for each
 * size, under TS 5.9 and TS 7. Median wall and GNU time's peak RSS; types and instantiations from
 * one extra `--extendedDiagnostics` run. Corpora resolve `harness-tool` to the built package's
 * declarations (what a provider repository installs), with skipLibCheck like the MCP SDK's.
 */
import { cpSync, rmSync } from "node:fs";
import path from "node:path";
import { compilers, type BenchWorkspace, type CompilerName } from "./bench-workspace.js";
import { generateWithPlugin, toolImport } from "./plugin-generate.js";
import { median, roundRobinOrder, runTimed } from "./measure.js";
import { absolute, compared, formatKb, formatMs, unavailable, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";
import { syntheticTools, writeSyntheticProtos, type SyntheticTool } from "./synthetic-protos.js";
import {
  sharedHandlerBody,
  toolOnlyProject,
  writeBuilderCorpus,
  writeFloorCorpus,
  writeMcpCorpus,
  writePluginCorpus,
  type CorpusId,
} from "./typecheck-corpus.js";

/** The folder and project file of a corpus. */
function corpusProject(base: string, corpus: CorpusId): { dir: string; project: string } {
  return corpus === "harness-tool-tool-only"
    ? { dir: path.join(base, "harness-tool"), project: toolOnlyProject }
    : { dir: path.join(base, corpus), project: "tsconfig.json" };
}
const compilerNames = Object.keys(compilers) as CompilerName[];

interface CheckRuns {
  wallMs: number[];
  rssKb: number[];
  failure: string | undefined;
  types: number | undefined;
  instantiations: number | undefined;
}

function diagnosticCount(output: string, label: string): number | undefined {
  const m = new RegExp(`^${label}:\\s+(\\d+)`, "m").exec(output);
  return m ? Number(m[1]) : undefined;
}

function tsc(compiler: CompilerName, where: { dir: string; project: string }, extra: readonly string[], timeoutMs: number) {
  const c = compilers[compiler];
  return runTimed(c.command, [...c.args, "-p", path.join(where.dir, where.project), ...extra], { cwd: where.dir, timeoutMs });
}

/**
 * Writes harness-tool's corpus from the plugin's output when the plugin is there and its output
 * has a recognizable handlers interface and factory; otherwise from the hand-written builder.
 * Returns how it was written.
 */
async function writeOurCorpus(ws: BenchWorkspace, dir: string, tools: readonly SyntheticTool[], n: number): Promise<string> {
  const generated = await generateWithPlugin(ws, `typecheck-gen-${n}`, (protoDir) => writeSyntheticProtos(protoDir, n, "one-file"));
  if (!generated.ok) {
    writeBuilderCorpus(dir, tools);
    return `hand-written builder, not plugin output (${generated.why})`;
  }
  const handlers = `// Implements the generated handler interface with the body every corpus shares.
import { ${generated.factory}, type ${generated.handlersType} } from "${toolImport(generated)}";

const handlers: ${generated.handlersType} = {
${tools.map((t) => `  ${t.handlerKey}: async (input) => ${sharedHandlerBody("input")},`).join("\n")}
};

export const provider = ${generated.factory}(handlers);
`;
  writePluginCorpus(dir, handlers);
  cpSync(path.join(generated.root, "gen"), path.join(dir, "gen"), { recursive: true });
  return `plugin output (${generated.toolFile} and protoc-gen-es's _pb.ts, ${generated.handlersType}, ${generated.factory}) plus a handlers file`;
}

/** The type-check suite. */
export const typecheckSuite: Suite = {
  id: "typecheck",
  title: "2. Type-check cost (tsc --noEmit -p)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const runs = context.runs ?? (context.quick ? 1 : 5);
    const timeoutMs = 180_000;
    const figures: Figure[] = [];
    const notes: string[] = [];
    const { ws, build } = await context.packagedWorkspace();
    if (!build.ok) {
      return { id: this.id, title: this.title, method: [], figures: [], notes: [`the package did not build: ${build.diagnostics.slice(0, 500)}`] };
    }
    const ourMedians = new Map<string, number>();
    const ourSources = new Set<string>();
    for (const n of context.sizes) {
      const tools = syntheticTools(n);
      const base = path.join(ws.root, `typecheck-${n}`);
      rmSync(base, { recursive: true, force: true });
      writeFloorCorpus(path.join(base, "floor"), tools);
      writeMcpCorpus(path.join(base, "mcp"), tools);
      context.log(`typecheck ${n} tools: writing harness-tool's corpus`);
      const ourSource = await writeOurCorpus(ws, path.join(base, "harness-tool"), tools, n);
      ourSources.add(ourSource);
      const pluginOutput = ourSource.startsWith("plugin output");
      const corpora: CorpusId[] = ["harness-tool", "floor", "mcp", ...(pluginOutput ? (["harness-tool-tool-only"] as const) : [])];
      const results = new Map<string, CheckRuns>();
      const pairs = compilerNames.flatMap((compiler) => corpora.map((corpus) => ({ compiler, corpus, key: `${compiler} ${corpus}` })));
      for (const p of pairs) results.set(p.key, { wallMs: [], rssKb: [], failure: undefined, types: undefined, instantiations: undefined });
      // One untimed pass per pair: reports type errors and the type/instantiation counts.
      for (const p of pairs) {
        const r = results.get(p.key) as CheckRuns;
        const run = await tsc(p.compiler, corpusProject(base, p.corpus), ["--extendedDiagnostics"], timeoutMs);
        if (run.timedOut) r.failure = `timed out after ${formatMs(timeoutMs)}`;
        else if (run.status !== 0) r.failure = `tsc exited ${run.status}: ${(run.stdout + run.stderr).split("\n").filter((l) => /error TS/.test(l)).slice(0, 3).join(" / ")}`;
        r.types = diagnosticCount(run.stdout, "Types");
        r.instantiations = diagnosticCount(run.stdout, "Instantiations");
      }
      for (let round = 0; round < runs; round++) {
        for (const p of roundRobinOrder(pairs, round)) {
          const r = results.get(p.key) as CheckRuns;
          if (r.failure !== undefined) continue;
          context.log(`typecheck ${n} tools: ${p.key} run ${round + 1}/${runs}`);
          const run = await tsc(p.compiler, corpusProject(base, p.corpus), [], timeoutMs);
          if (run.status !== 0) {
            r.failure = run.timedOut ? `timed out after ${formatMs(timeoutMs)}` : `tsc exited ${run.status}`;
            continue;
          }
          r.wallMs.push(run.wallMs);
          if (run.peakRssKb !== undefined) r.rssKb.push(run.peakRssKb);
        }
      }
      for (const compiler of compilerNames) {
        const get = (c: CorpusId) => results.get(`${compiler} ${c}`) as CheckRuns;
        const ours = get("harness-tool");
        const floor = get("floor");
        const mcp = get("mcp");
        const label = `${compiler}, ${n} tools`;
        const counts = (r: CheckRuns) => `${r.types ?? "?"} types, ${r.instantiations ?? "?"} inst.`;
        const strict = n >= 100;
        if (ours.failure || floor.failure) {
          figures.push(unavailable(`wall vs floor, ${label}`, `harness-tool: ${ours.failure ?? "ok"}; floor: ${floor.failure ?? "ok"}`));
        } else {
          ourMedians.set(`${compiler} ${n}`, median(ours.wallMs));
          figures.push(compared(`wall vs floor, ${label}`, median(ours.wallMs), formatMs, { label: "floor", value: median(floor.wallMs) }, 2, `${counts(ours)} vs ${counts(floor)}`));
        }
        if (ours.failure || mcp.failure) {
          figures.push(unavailable(`wall vs MCP SDK, ${label}`, `harness-tool: ${ours.failure ?? "ok"}; mcp: ${mcp.failure ?? "ok"}`));
        } else {
          figures.push(compared(`wall vs MCP SDK, ${label}`, median(ours.wallMs), formatMs, { label: "MCP SDK", value: median(mcp.wallMs) }, strict ? 0.5 : undefined, `MCP: ${counts(mcp)}${strict ? "" : "; target applies at 100 and 500 tools"}`));
        }
        const toolOnly = results.get(`${compiler} harness-tool-tool-only`);
        if (toolOnly && !toolOnly.failure && !floor.failure && !mcp.failure) {
          figures.push(
            compared(`_tool.ts + handlers only (no _pb.ts) vs floor, ${label}`, median(toolOnly.wallMs), formatMs, { label: "floor", value: median(floor.wallMs) }, undefined, `diagnostic: ${counts(toolOnly)}; vs MCP SDK ${(median(toolOnly.wallMs) / median(mcp.wallMs)).toFixed(2)}×`),
          );
        }
        if (!ours.failure && !floor.failure && !mcp.failure) {
          const rss = (r: CheckRuns) => Math.max(...r.rssKb);
          figures.push(compared(`peak RSS vs floor, ${label}`, rss(ours), (kb) => formatKb(kb), { label: "floor", value: rss(floor) }, undefined, `MCP SDK ${formatKb(rss(mcp))}`));
        }
      }
    }
    for (const compiler of compilerNames) {
      const small = ourMedians.get(`${compiler} 100`);
      const large = ourMedians.get(`${compiler} 500`);
      if (small !== undefined && large !== undefined) {
        figures.push(compared(`harness-tool growth 100→500 tools, ${compiler}`, large, formatMs, { label: "100 tools", value: small }, 6));
      }
    }
    if (!context.sizes.includes(100) || !context.sizes.includes(500)) notes.push("growth 100→500 tools: needs sizes 100 and 500");
    if ([...ourSources].some((s) => s.startsWith("hand-written"))) {
      figures.push(absolute("harness-tool corpus source", "hand-written builder", undefined, "not plugin output: the figures above measure defineTool/defineProvider written by hand"));
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        "Corpora from bench/typecheck-corpus.ts, the same tools as the code-generation suite (one-file layout): floor (plain interfaces + async functions), MCP SDK 1.32.2 registerTool with zod 4 input and output shapes, and harness-tool.",
        `harness-tool corpus: ${[...ourSources].join("; ")}.`,
        "tsconfig: strict, NodeNext, skipLibCheck, exactOptionalPropertyTypes, noUncheckedIndexedAccess, types [node], noEmit; `harness-tool` resolves to the built package's .d.ts (tsconfig.build.json output), as in a provider repository.",
        `TS 5.9: node node_modules/typescript/bin/tsc; TS 7: node_modules/typescript7/bin/tsc. Median wall of ${runs} run(s), round-robin over (compiler, corpus); peak RSS from GNU time %M; types/instantiations from one extra --extendedDiagnostics run.`,
      ],
      figures,
      notes,
    };
  },
};
