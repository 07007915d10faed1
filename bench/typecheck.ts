/**
 * Suite 2, type-check cost: `tsc --noEmit -p` on the corpora for each size, under TS 5.9 and
 * TS 7. Median wall and GNU time's peak RSS; types and instantiations from one extra
 * `--extendedDiagnostics` run. harness-tool's corpus is the repository `harness-tool init` writes,
 * generated for the synthetic tools (bench/scaffold-corpus.ts), once as the scaffold has it
 * (target=js+dts) and once with target=ts, the comparison that chose the scaffold's default; the
 * floor and the MCP SDK's come from bench/typecheck-corpus.ts. `harness-tool` resolves to the
 * built package's declarations (what a provider repository installs), with skipLibCheck as in the
 * scaffold.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { compilers, type BenchWorkspace, type CompilerName } from "./bench-workspace.js";
import { median, roundRobinOrder, runTimed } from "./measure.js";
import { compared, formatKb, formatMs, failedFigure, type Figure, type SuiteReport } from "./report.js";
import { writeScaffoldCorpus } from "./scaffold-corpus.js";
import type { Suite, SuiteContext } from "./suite.js";
import { syntheticTools } from "./synthetic-protos.js";
import { writeFloorCorpus, writeMcpCorpus, writeSchemaFirstCorpus } from "./typecheck-corpus.js";

/** The corpora, by folder name under each size's folder. */
type CorpusId = "harness-tool" | "harness-tool-ts" | "schema-first" | "floor" | "mcp";

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

/** `tsc -p <dir> --noEmit`: the scaffold's tsconfig emits for its build, a type-check does not. */
function tsc(compiler: CompilerName, dir: string, extra: readonly string[], timeoutMs: number) {
  const c = compilers[compiler];
  return runTimed(c.command, [...c.args, "-p", path.join(dir, "tsconfig.json"), "--noEmit", ...extra], {
    cwd: dir,
    timeoutMs,
  });
}

/** The scaffold's buf.gen.yaml with target=ts in place of its target. */
function withTargetTs(bufGen: string): string {
  const changed = bufGen.replace(/- target=[\w+]+/, "- target=ts");
  if (changed === bufGen) throw new Error("the scaffold's buf.gen.yaml names no target");
  return changed;
}

/** Writes harness-tool's corpora for `n` tools; the reason for each one that could not be. */
async function writeOurCorpora(ws: BenchWorkspace, base: string, n: number): Promise<Map<CorpusId, string>> {
  const failures = new Map<CorpusId, string>();
  const tools = syntheticTools(n);
  const scaffold = await writeScaffoldCorpus(ws, path.join(base, "harness-tool"), tools);
  if (!scaffold.ok) failures.set("harness-tool", scaffold.why);
  const ts = await writeScaffoldCorpus(ws, path.join(base, "harness-tool-ts"), tools, withTargetTs);
  if (!ts.ok) failures.set("harness-tool-ts", ts.why);
  return failures;
}

/** The schema-first corpus (defineTool({...}), types inferred) against the generated one, the floor in the note. */
function schemaFirstFigure(
  label: string,
  schemaFirst: CheckRuns,
  ours: CheckRuns,
  floor: CheckRuns,
  counts: (r: CheckRuns) => string,
  rss: (r: CheckRuns) => number,
): Figure {
  const name = `schema-first defineTool({...}) vs generated (js+dts), ${label}`;
  const failure = schemaFirst.failure ?? ours.failure ?? floor.failure;
  if (failure !== undefined)
    return failedFigure(name, `schema-first: ${schemaFirst.failure ?? "ok"}; harness-tool: ${ours.failure ?? "ok"}`);
  const vsFloor = median(schemaFirst.wallMs) / median(floor.wallMs);
  return compared(
    name,
    median(schemaFirst.wallMs),
    formatMs,
    { label: "generated", value: median(ours.wallMs) },
    undefined,
    `${counts(schemaFirst)}, peak ${formatKb(rss(schemaFirst))}; ${vsFloor.toFixed(2)}× floor`,
  );
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
      return {
        id: this.id,
        title: this.title,
        method: [],
        figures: [],
        notes: [],
        failures: [`the package did not build: ${build.diagnostics.slice(0, 500)}`],
      };
    }
    const ourMedians = new Map<string, number>();
    for (const n of context.sizes) {
      const tools = syntheticTools(n);
      const base = path.join(ws.root, `typecheck-${n}`);
      rmSync(base, { recursive: true, force: true });
      writeFloorCorpus(path.join(base, "floor"), tools);
      writeMcpCorpus(path.join(base, "mcp"), tools);
      writeSchemaFirstCorpus(path.join(base, "schema-first"), tools, ws.packageDir);
      context.log(`typecheck ${n} tools: writing harness-tool's corpora (init + npm run generate)`);
      const unwritten = await writeOurCorpora(ws, base, n);
      const corpora: CorpusId[] = ["harness-tool", "harness-tool-ts", "schema-first", "floor", "mcp"];
      const results = new Map<string, CheckRuns>();
      const pairs = compilerNames.flatMap((compiler) =>
        corpora.map((corpus) => ({ compiler, corpus, key: `${compiler} ${corpus}` })),
      );
      for (const p of pairs)
        results.set(p.key, {
          wallMs: [],
          rssKb: [],
          failure: unwritten.get(p.corpus),
          types: undefined,
          instantiations: undefined,
        });
      // One untimed pass per pair: reports type errors and the type/instantiation counts.
      for (const p of pairs) {
        const r = results.get(p.key) as CheckRuns;
        if (r.failure !== undefined) continue;
        const run = await tsc(p.compiler, path.join(base, p.corpus), ["--extendedDiagnostics"], timeoutMs);
        if (run.timedOut) r.failure = `timed out after ${formatMs(timeoutMs)}`;
        else if (run.status !== 0)
          r.failure = `tsc exited ${run.status}: ${(run.stdout + run.stderr)
            .split("\n")
            .filter((l) => /error TS/.test(l))
            .slice(0, 3)
            .join(" / ")}`;
        r.types = diagnosticCount(run.stdout, "Types");
        r.instantiations = diagnosticCount(run.stdout, "Instantiations");
      }
      for (let round = 0; round < runs; round++) {
        for (const p of roundRobinOrder(pairs, round)) {
          const r = results.get(p.key) as CheckRuns;
          if (r.failure !== undefined) continue;
          context.log(`typecheck ${n} tools: ${p.key} run ${round + 1}/${runs}`);
          const run = await tsc(p.compiler, path.join(base, p.corpus), [], timeoutMs);
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
        const oursTs = get("harness-tool-ts");
        const floor = get("floor");
        const mcp = get("mcp");
        const label = `${compiler}, ${n} tools`;
        const counts = (r: CheckRuns) => `${r.types ?? "?"} types, ${r.instantiations ?? "?"} inst.`;
        const strict = n >= 100;
        const rss = (r: CheckRuns) => Math.max(...r.rssKb);
        const why = (...named: [string, CheckRuns][]) =>
          named.map(([name, r]) => `${name}: ${r.failure ?? "ok"}`).join("; ");
        if (ours.failure || floor.failure) {
          figures.push(failedFigure(`wall vs floor, ${label}`, why(["harness-tool", ours], ["floor", floor])));
        } else {
          ourMedians.set(`${compiler} ${n}`, median(ours.wallMs));
          figures.push(
            compared(
              `wall vs floor, ${label}`,
              median(ours.wallMs),
              formatMs,
              { label: "floor", value: median(floor.wallMs) },
              strict ? 1.5 : undefined,
              `${counts(ours)} vs ${counts(floor)}${strict ? "" : "; target applies at 100 and 500 tools"}`,
            ),
          );
        }
        if (ours.failure || mcp.failure) {
          figures.push(failedFigure(`wall vs MCP SDK, ${label}`, why(["harness-tool", ours], ["mcp", mcp])));
        } else {
          figures.push(
            compared(
              `wall vs MCP SDK, ${label}`,
              median(ours.wallMs),
              formatMs,
              { label: "MCP SDK", value: median(mcp.wallMs) },
              strict ? 0.5 : undefined,
              `MCP: ${counts(mcp)}${strict ? "" : "; target applies at 100 and 500 tools"}`,
            ),
          );
          figures.push(
            compared(
              `peak RSS vs MCP SDK, ${label}`,
              rss(ours),
              (kb) => formatKb(kb),
              { label: "MCP SDK", value: rss(mcp) },
              strict ? 1 : undefined,
              floor.failure ? undefined : `floor ${formatKb(rss(floor))}`,
            ),
          );
        }
        if (!ours.failure && !oursTs.failure) {
          const vsMcp = mcp.failure
            ? ""
            : `; target=ts vs MCP SDK ${(median(oursTs.wallMs) / median(mcp.wallMs)).toFixed(2)}×`;
          figures.push(
            compared(
              `target=ts (scaffold otherwise the same) vs target=js+dts, ${label}`,
              median(oursTs.wallMs),
              formatMs,
              { label: "js+dts", value: median(ours.wallMs) },
              undefined,
              `${counts(oursTs)}, peak ${formatKb(rss(oursTs))}${vsMcp}`,
            ),
          );
        } else if (oursTs.failure) {
          figures.push(failedFigure(`target=ts vs target=js+dts, ${label}`, why(["harness-tool-ts", oursTs])));
        }
        figures.push(schemaFirstFigure(label, get("schema-first"), ours, floor, counts, rss));
      }
    }
    for (const compiler of compilerNames) {
      const small = ourMedians.get(`${compiler} 100`);
      const large = ourMedians.get(`${compiler} 500`);
      if (small !== undefined && large !== undefined) {
        figures.push(
          compared(
            `harness-tool growth 100→500 tools, ${compiler}`,
            large,
            formatMs,
            { label: "100 tools", value: small },
            5,
          ),
        );
      }
    }
    if (!context.sizes.includes(100) || !context.sizes.includes(500))
      notes.push("growth 100→500 tools: needs sizes 100 and 500");
    return {
      id: this.id,
      title: this.title,
      method: [
        "The same tools as the code-generation suite (one-file layout), written four ways: floor (plain interfaces + async functions, bench/typecheck-corpus.ts), MCP SDK 1.32.2 registerTool with zod 4 input and output shapes, harness-tool generated, and harness-tool schema-first (defineTool({...}) with the JSON Schemas inline, one defineProvider whose handlers take their types from them). Every corpus declares the types the plugin generates (format as its JSON names, repeated fields optional) and the same handler body.",
        "harness-tool: the repository `harness-tool init` writes (its package.json, buf.yaml, buf.gen.yaml, tsconfig.json) with the synthetic proto in place of the example, generated by its `npm run generate` (protoc-gen-harness-tool alone, target=js+dts, the installed package's bundled plugin), src/handlers.ts implementing the generated handler interface and src/main.ts serving it; the target=ts row is the same repository with target=ts in buf.gen.yaml.",
        "tsconfig: the scaffold's (strict, NodeNext, skipLibCheck, exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax, types [node]) with --noEmit; floor and MCP the same flags; `harness-tool` resolves to the built package's .d.ts (tsconfig.build.json output), as in a provider repository.",
        `TS 5.9: node node_modules/typescript/bin/tsc; TS 7: node_modules/typescript7/bin/tsc. Median wall of ${runs} run(s), round-robin over (compiler, corpus); peak RSS from GNU time %M; types/instantiations from one extra --extendedDiagnostics run.`,
      ],
      figures,
      notes,
    };
  },
};
