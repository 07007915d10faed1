/**
 * `npm run bench [-- SUITE... --sizes=10,100 --runs=N --quick --out=FILE --keep --profile]`: runs the
 * benchmark suites (docs/benchmarks.md), prints a table per suite (figure, baseline, ratio,
 * target, verdict) and writes RESULTS.md. Suites: codegen, typecheck, startup, invoke, memory,
 * streams, telemetry, inspector, packaging, release, node-lines, validators, cost-table (default: all).
 * --quick is a smoke run (10 tools, one repetition, short loops) whose report goes to the OS temp
 * dir unless --out is given; a full run writes bench/RESULTS.md, replacing only the sections of the
 * suites it ran.
 */
import path from "node:path";
import os from "node:os";
import {
  buildPackage,
  createWorkspace,
  removeAllWorkspaces,
  repoRoot,
  type BenchWorkspace,
  type PackageBuild,
} from "./bench-workspace.js";
import { codegenSuite } from "./codegen.js";
import { costTableSuite } from "./cost-table.js";
import { inspectorSuite } from "./inspector.js";
import { invokeSuite } from "./invoke.js";
import { memorySuite } from "./memory.js";
import { nodeLinesSuite } from "./node-lines.js";
import { packagingSuite } from "./packaging.js";
import { releaseSuite } from "./release.js";
import { startupSuite } from "./startup.js";
import { streamsSuite } from "./streams.js";
import { telemetrySuite } from "./telemetry.js";
import { validatorsSuite } from "./validators.js";
import { typecheckSuite } from "./typecheck.js";
import { killAllChildren } from "./measure.js";
import {
  machineInfo,
  machineLine,
  markdownSection,
  suiteFailures,
  textTable,
  writeResults,
  type SuiteReport,
} from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

const allSuites: readonly Suite[] = [
  codegenSuite,
  typecheckSuite,
  startupSuite,
  invokeSuite,
  memorySuite,
  streamsSuite,
  telemetrySuite,
  validatorsSuite,
  inspectorSuite,
  packagingSuite,
  releaseSuite,
  nodeLinesSuite,
  costTableSuite,
];

interface Args {
  suites: string[];
  sizes: number[] | undefined;
  runs: number | undefined;
  quick: boolean;
  out: string | undefined;
  keep: boolean;
  profile: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    suites: [],
    sizes: undefined,
    runs: undefined,
    quick: false,
    out: undefined,
    keep: false,
    profile: false,
  };
  for (const a of argv) {
    if (a === "--quick") args.quick = true;
    else if (a === "--keep") args.keep = true;
    else if (a === "--profile") args.profile = true;
    else if (a.startsWith("--sizes=")) args.sizes = a.slice(8).split(",").map(Number);
    else if (a.startsWith("--runs=")) args.runs = Number(a.slice(7));
    else if (a.startsWith("--out=")) args.out = path.resolve(a.slice(6));
    else if (a === "--help" || a === "-h") {
      process.stdout.write(
        `usage: npm run bench -- [${allSuites.map((s) => s.id).join("|")} ...] [--sizes=10,100,500] [--runs=N] [--quick] [--out=FILE] [--keep] [--profile]\n`,
      );
      process.exit(0);
    } else if (a.startsWith("-")) throw new Error(`unknown option ${a}`);
    else args.suites.push(a);
  }
  for (const s of args.suites) {
    if (!allSuites.some((x) => x.id === s))
      throw new Error(`unknown suite ${s} (suites: ${allSuites.map((x) => x.id).join(", ")})`);
  }
  if (args.sizes?.some((n) => !Number.isInteger(n) || n <= 0))
    throw new Error("--sizes takes positive integers, e.g. --sizes=10,100");
  if (args.runs !== undefined && (!Number.isInteger(args.runs) || args.runs <= 0))
    throw new Error("--runs takes a positive integer");
  return args;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const selected = args.suites.length === 0 ? allSuites : allSuites.filter((s) => args.suites.includes(s.id));
  const machine = machineInfo(repoRoot);
  const mode = args.quick ? "quick smoke run: not for comparison" : "full run";
  process.stdout.write(`harness-tool bench (${mode})\nmachine: ${machineLine(machine)}\n\n`);
  let shared: Promise<{ ws: BenchWorkspace; build: PackageBuild }> | undefined;
  const context: SuiteContext = {
    quick: args.quick,
    sizes: args.sizes ?? (args.quick ? [10] : [10, 100, 500]),
    runs: args.runs,
    profile: args.profile,
    log: (m) => process.stderr.write(`  … ${m}\n`),
    packagedWorkspace() {
      shared ??= (async () => {
        const ws = createWorkspace("pkg");
        context.log(`building the package into ${ws.packageDir}/dist`);
        const build = await buildPackage(ws, 180_000);
        if (!build.ok) context.log(`package build failed:\n${build.diagnostics.slice(0, 2000)}`);
        else if (build.diagnostics)
          context.log(
            `package built with diagnostics (work in progress elsewhere):\n${build.diagnostics.slice(0, 1000)}`,
          );
        return { ws, build };
      })();
      return shared;
    },
  };
  const sections = new Map<string, string>();
  const reports: SuiteReport[] = [];
  for (const suite of selected) {
    const started = performance.now();
    let report: SuiteReport;
    try {
      report = await suite.run(context);
    } catch (error) {
      report = {
        id: suite.id,
        title: suite.title,
        method: [],
        figures: [],
        notes: [],
        failures: [`the suite crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`],
      };
    } finally {
      killAllChildren();
    }
    reports.push(report);
    process.stdout.write(`${textTable(report)}\n   (${((performance.now() - started) / 1000).toFixed(1)} s)\n\n`);
    for (const f of suiteFailures(report)) process.stderr.write(`bench: ${suite.id} failed: ${f}\n`);
    sections.set(suite.id, markdownSection(report, machine, mode));
  }
  const out =
    args.out ??
    (args.quick ? path.join(os.tmpdir(), "harness-tool-bench-quick.md") : path.join(repoRoot, "bench", "RESULTS.md"));
  const header = [
    "# harness-tool benchmark results",
    "",
    "Written by `npm run bench` (bench/run.ts); see docs/benchmarks.md for what each suite measures. These",
    "machines are noisy: every figure is a median from one run, next to its baseline measured in the",
    "same run, and the ratio is what the targets constrain.",
    "",
    `Last run: ${machine.date}, ${mode}, suites ${selected.map((s) => s.id).join(", ")}; machine: ${machineLine(machine)}.`,
  ].join("\n");
  writeResults(
    out,
    header,
    sections,
    allSuites.map((s) => s.id),
  );
  process.stdout.write(`wrote ${out}\n`);
  const failed = reports.filter((r) => suiteFailures(r).length > 0).map((r) => r.id);
  if (failed.length > 0) process.stderr.write(`bench: failed suites: ${failed.join(", ")} (their errors above)\n`);
  if (!args.keep) removeAllWorkspaces();
  else process.stdout.write("kept the temp workspaces (--keep)\n");
  process.exitCode = failed.length > 0 ? 1 : 0;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killAllChildren();
    removeAllWorkspaces();
    process.exit(130);
  });
}

main().catch((error: unknown) => {
  killAllChildren();
  removeAllWorkspaces();
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
