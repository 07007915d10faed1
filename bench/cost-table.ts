/**
 * The cost table, one run (`npm run bench -- cost-table`): what a provider costs the kernel, every
 * figure of the table in one run of interleaved rounds, through the go-plugin v1.8.0 host of
 * bench/kernel-host.ts: the Go provider (bench/go/provider) against harness-tool contenders, each
 * the kernel bench provider (bench/fixtures/kernel-bench-provider.ts: `echo` and the exec example's
 * `bash`) bundled at a git revision by that revision's own `harness-tool bundle` (or this checkout,
 * `tree`), and launched with a supervisor of its own choice. Beside them, the floors of the same
 * run: `node -e 0` spawn → exit, and the Node floor, one bare node:http2 tool server process
 * (bench/fixtures/http2-tool-server.ts: no validation, no supervisor) measured as a contender on
 * every row (fresh launches, and a long-lived instance for the echo blocks and the stream), so
 * each target shows whether Node itself can reach it and how close the judged contender is.
 *
 * HARNESS_TOOL_COST_CONTENDERS=<rev>:<supervisor>,... picks the harness-tool contenders (default
 * below): rev is a commit of this repository or `tree`; supervisor is `default` (`node <bundle>`,
 * the runtime choosing: the Node supervisor before the Go one became the default, the installed
 * Go program after), `exec` (the host executes the bundle's file as the kernel does: since the
 * Go supervisor became the default, its sh line starts the Go program before any Node), `node`
 * (HARNESS_TOOL_SUPERVISOR_BINARY=node: the Node supervisor, on revisions that know that value),
 * `go-execve` (HARNESS_TOOL_SUPERVISOR_BINARY=<the Go program>: one Node start, then the Go program
 * in its place), `go-launcher` (the host launches the Go program, which starts node) or `off`. The
 * Go program is supervisor-go/ built here, or the bench's own HARNESS_TOOL_SUPERVISOR_BINARY when
 * set; for `tree` it is also installed as this platform's package first, so the tree's bundle
 * carries it as users' bundles do.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type BenchWorkspace, createWorkspace, repoRoot } from "./bench-workspace.js";
import {
  bundle,
  invokeRequest,
  processTree,
  sourceTreeAtCommit,
  treeCpuPreciseMs,
  treeRssKb,
} from "./kernel-contenders.js";
import { Samples } from "./kernel-figures.js";
import { benchGoPluginVersion, buildBenchGo, buildSupervisorGo, KernelHost } from "./kernel-host.js";
import { bareNodeMs, median, percentile, roundRobinOrder, sleep, withDeadline } from "./measure.js";
import { failedFigure, type Figure, formatRatio, type SuiteReport } from "./report.js";
import { peakWhile, writeDataFile } from "./streams.js";
import type { Suite, SuiteContext } from "./suite.js";
import { installSupervisorPackage } from "../test/support/supervisor-package.mjs";

/** The "before" of the cost session: main as it was, Node supervisor and grpc-js. */
export const defaultBefore = "e6bedf1";
/** The harness-tool contenders when HARNESS_TOOL_COST_CONTENDERS is not set. */
export const defaultContenders = `${defaultBefore}:default,tree:exec,tree:node,tree:go-execve`;

const supervisorChoices = ["default", "exec", "node", "go-execve", "go-launcher", "off"] as const;
type SupervisorChoice = (typeof supervisorChoices)[number];

/** One process the host launches. */
interface Contender {
  readonly key: string;
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [name: string]: string };
}

/** Parses HARNESS_TOOL_COST_CONTENDERS. */
export function parseContenderSpec(spec: string): { rev: string; supervisor: SupervisorChoice }[] {
  return spec
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "")
    .map((item) => {
      const at = item.lastIndexOf(":");
      const rev = item.slice(0, at);
      const supervisor = item.slice(at + 1);
      if (at <= 0 || !(supervisorChoices as readonly string[]).includes(supervisor))
        throw new Error(
          `HARNESS_TOOL_COST_CONTENDERS: ${item} is not <rev>:<supervisor> (rev a commit or tree; supervisor one of ${supervisorChoices.join(", ")})`,
        );
      return { rev, supervisor: supervisor as SupervisorChoice };
    });
}

/** The commit `rev` names, shortened; a clear error when it names none. */
function shortCommit(rev: string): string {
  const parsed = spawnSync("git", ["rev-parse", "--short=7", "--verify", `${rev}^{commit}`], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: 30_000,
  });
  if (parsed.status !== 0) throw new Error(`${rev} is not a commit of this repository (name a commit or tree)`);
  return parsed.stdout.trim();
}

/** The kernel bench provider as it was at `commit`, bundled by that commit's own `harness-tool bundle`. */
function bundleWithItsOwnCli(ws: BenchWorkspace, commit: string): string {
  const dir = sourceTreeAtCommit(ws, commit);
  const outfile = path.join(ws.root, `cost-${commit}`, "provider.mjs");
  mkdirSync(path.dirname(outfile), { recursive: true });
  const run = spawnSync(
    process.execPath,
    [
      path.join(dir, "cli/harness-tool.mjs"),
      "bundle",
      path.join(dir, "bench/fixtures/kernel-bench-provider.ts"),
      "--outfile",
      outfile,
    ],
    { cwd: dir, encoding: "utf8", timeout: 180_000 },
  );
  if (run.status !== 0)
    throw new Error(`harness-tool bundle at ${commit} failed (exit ${run.status ?? run.signal}): ${run.stderr.trim()}`);
  return outfile;
}

/** The Go supervisor: the bench's HARNESS_TOOL_SUPERVISOR_BINARY, or supervisor-go/ built here. */
function goSupervisor(): string {
  const given = process.env["HARNESS_TOOL_SUPERVISOR_BINARY"];
  if (given) return given;
  const built = buildSupervisorGo();
  if ("skip" in built) throw new Error(`a contender asks for the Go supervisor, but ${built.skip}`);
  return built.binary;
}

/**
 * The host, started without the bench's HARNESS_TOOL_SUPERVISOR_BINARY: GoHost hands that variable
 * to every launch (a test run against another supervisor), which would override each contender's
 * own choice of supervisor.
 */
function hostOwnChoices(binary: string): KernelHost {
  const saved = process.env["HARNESS_TOOL_SUPERVISOR_BINARY"];
  delete process.env["HARNESS_TOOL_SUPERVISOR_BINARY"];
  try {
    return new KernelHost(binary);
  } finally {
    if (saved !== undefined) process.env["HARNESS_TOOL_SUPERVISOR_BINARY"] = saved;
  }
}

/** The harness-tool contenders of `spec`, each bundled once per revision. */
async function harnessContenders(ws: BenchWorkspace, spec: string, log: (m: string) => void): Promise<Contender[]> {
  const bundles = new Map<string, { file: string; name: string }>();
  const out: Contender[] = [];
  for (const { rev, supervisor } of parseContenderSpec(spec)) {
    let built = bundles.get(rev);
    if (!built) {
      log(`cost-table: bundling harness-tool at ${rev}`);
      if (rev === "tree") {
        const installed = installSupervisorPackage();
        if (installed.reason !== undefined) throw new Error(`the tree's Go supervisor: ${installed.reason}`);
        built = { file: await bundle(ws, "bench/fixtures/kernel-bench-provider.ts", "cost-tree"), name: "this tree" };
      } else {
        const commit = shortCommit(rev);
        built = { file: bundleWithItsOwnCli(ws, commit), name: commit };
      }
      bundles.set(rev, built);
    }
    const node = process.execPath;
    const base = { key: `${rev}:${supervisor}`, command: node, args: [built.file], env: {} };
    if (supervisor === "default") out.push({ ...base, label: `${built.name}, node <bundle>` });
    else if (supervisor === "exec")
      out.push({ ...base, label: `${built.name}, bundle executed`, command: built.file, args: [] });
    else if (supervisor === "node")
      out.push({ ...base, label: `${built.name}, Node supervisor`, env: { HARNESS_TOOL_SUPERVISOR_BINARY: "node" } });
    else if (supervisor === "off")
      out.push({ ...base, label: `${built.name}, supervisor off`, env: { HARNESS_TOOL_SUPERVISOR: "off" } });
    else if (supervisor === "go-execve")
      out.push({
        ...base,
        label: `${built.name}, Go supervisor (execve)`,
        env: { HARNESS_TOOL_SUPERVISOR_BINARY: goSupervisor() },
      });
    else out.push({ ...base, label: `${built.name}, Go launcher`, command: goSupervisor(), args: [node, built.file] });
  }
  if (out.length === 0) throw new Error("HARNESS_TOOL_COST_CONTENDERS names no contender (e.g. tree:node)");
  return out;
}

/** The sizes of a run. */
interface Plan {
  readonly rounds: number;
  readonly c1: number;
  readonly c32: number;
  readonly sizeMb: number;
  readonly settleMs: number;
}

const deadlineMs = 180_000;
const mb = 1_000_000;

/** A fresh launch: spawn → GetSchema, Configure, idle tree RSS after a pause, Kill → exit. */
async function freshLaunch(host: KernelHost, c: Contender, id: string, plan: Plan, samples: Samples): Promise<void> {
  const launched = await withDeadline(host.launch(id, c.command, c.args, c.env), deadlineMs, `${c.label}: launch`);
  await withDeadline(host.configure(id), deadlineMs, `${c.label}: Configure`);
  await sleep(plan.settleMs);
  const idle = treeRssKb(launched.pid);
  if (idle === 0) throw new Error(`${c.label}: its process tree (pid ${launched.pid}) is gone after Configure`);
  samples.add(c.key, "schema", launched.schemaMs);
  samples.add(c.key, "idle", idle / 1024);
  samples.add(c.key, "processes", processTree(launched.pid).length);
  samples.add(c.key, "kill", await withDeadline(host.kill(id), deadlineMs, `${c.label}: Kill`));
}

/** One round of the live instance: echo blocks at c=1 and c=32 (CPU, latencies), then the stream. */
async function liveRound(
  host: KernelHost,
  c: Contender,
  pid: number,
  plan: Plan,
  requests: { readonly echo: Uint8Array; readonly cat: Uint8Array },
  samples: Samples,
): Promise<void> {
  for (const [key, calls, concurrency] of [
    ["c1", plan.c1, 1],
    ["c32", plan.c32, 32],
  ] as const) {
    const before = treeCpuPreciseMs(pid);
    const block = await withDeadline(
      host.load(`${c.key}-live`, requests.echo, calls, concurrency),
      deadlineMs,
      `${c.label}: ${calls} calls at c=${concurrency}`,
    );
    if (block.failures > 0) throw new Error(`${c.label}: ${block.failures} failed calls, first: ${block.firstFailure}`);
    samples.add(c.key, `${key}-cpu`, (treeCpuPreciseMs(pid) - before) / calls);
    samples.add(c.key, key, ...block.latenciesMs);
  }
  const idleKb = treeRssKb(pid);
  const { result, peakKb } = await peakWhile(
    () => treeRssKb(pid),
    withDeadline(host.stream(`${c.key}-live`, requests.cat), deadlineMs, `${c.label}: the stream`),
  );
  if (result.bytes !== plan.sizeMb * mb || result.terminal !== 5)
    throw new Error(`${c.label}: the stream delivered ${result.bytes} bytes and ended with event ${result.terminal}`);
  samples.add(c.key, "before-stream", idleKb / 1024);
  samples.add(c.key, "mbps", result.bytes / mb / (result.ms / 1000));
  samples.add(c.key, "peak", peakKb / 1024);
  samples.add(c.key, "above", (peakKb - idleKb) / 1024);
}

/** The floors' keys in the rounds. */
const nodeFloor = "floor:node -e 0";
const http2Floor = "floor:http2";

/** Launches every contender's live instance, Configure'd and warmed up; a failure is recorded. */
async function launchLive(
  host: KernelHost,
  contenders: readonly Contender[],
  plan: Plan,
  requests: { readonly echo: Uint8Array; readonly warm: Uint8Array },
  failed: Map<string, string>,
): Promise<Map<string, number>> {
  const live = new Map<string, number>();
  for (const c of contenders) {
    try {
      const id = `${c.key}-live`;
      const launched = await withDeadline(host.launch(id, c.command, c.args, c.env), deadlineMs, `${c.label}: launch`);
      await withDeadline(host.configure(id), deadlineMs, `${c.label}: Configure`);
      await withDeadline(host.load(id, requests.echo, plan.c1, 32), deadlineMs, `${c.label}: warm-up calls`);
      await withDeadline(host.stream(id, requests.warm), deadlineMs, `${c.label}: warm-up stream`);
      live.set(c.key, launched.pid);
    } catch (error) {
      failed.set(c.key, `${c.label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return live;
}

/** The interleaved rounds: every contender's fresh launch and live round, and the floors. */
async function measure(
  context: SuiteContext,
  host: KernelHost,
  contenders: readonly Contender[],
  floor: Contender,
  plan: Plan,
  file: string,
  ws: BenchWorkspace,
): Promise<{ samples: Samples; failed: Map<string, string> }> {
  const samples = new Samples();
  const failed = new Map<string, string>();
  const requests = {
    echo: invokeRequest("echo", { text: "hello" }, ws.root),
    cat: invokeRequest("bash", { command: `cat ${file}` }, ws.root),
    warm: invokeRequest("bash", { command: `head -c ${8 * mb} ${file}` }, ws.root),
  };
  const live = await launchLive(host, [...contenders, floor], plan, requests, failed);
  const keys = [...contenders.map((c) => c.key), nodeFloor, http2Floor];
  for (let round = 0; round < plan.rounds; round++) {
    context.log(`cost-table round ${round + 1}/${plan.rounds} (load average ${os.loadavg()[0]?.toFixed(1)})`);
    for (const key of roundRobinOrder(keys, round)) {
      if (failed.has(key)) continue;
      try {
        if (key === nodeFloor) samples.add(key, "start", bareNodeMs(process.execPath));
        else {
          const c = key === http2Floor ? floor : (contenders.find((x) => x.key === key) as Contender);
          await freshLaunch(host, c, `${key}-${round}`, plan, samples);
          await liveRound(host, c, live.get(key) as number, plan, requests, samples);
        }
      } catch (error) {
        const label = [...contenders, floor].find((x) => x.key === key)?.label ?? key;
        failed.set(key, `${label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { samples, failed };
}

/** One row of the table. */
interface Row {
  readonly name: string;
  readonly figure: string;
  readonly reduce: (values: readonly number[]) => number;
  readonly format: (v: number) => string;
  /** The target: at most (or, `higher`, at least) `ratio` × the reference. */
  readonly target?: { readonly ratio: number; readonly against: "go" | "node" | "http2"; readonly higher?: boolean };
}

const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(v < 10 ? 2 : 1)} ms` : "—");
const cpu = (v: number) => (Number.isFinite(v) ? `${v.toFixed(3)} ms` : "—");
const megabytes = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} MB` : "—");

function rows(plan: Plan): Row[] {
  const p50 = (values: readonly number[]) => percentile(values, 50);
  const row = (name: string, figure: string, format: Row["format"], target?: Row["target"], reduce = median): Row => ({
    name,
    figure,
    reduce,
    format,
    ...(target ? { target } : {}),
  });
  const twiceGo = { ratio: 2, against: "go" } as const;
  const mbps = (v: number) => (Number.isFinite(v) ? `${v.toFixed(0)} MB/s` : "—");
  return [
    row("spawn → GetSchema reply", "schema", ms, { ratio: 2, against: "node" }),
    row("idle RSS of the launched process tree", "idle", megabytes, { ratio: 1.15, against: "http2" }),
    row(`peak RSS while streaming ${plan.sizeMb} MB (tree)`, "peak", megabytes),
    row(`memory above idle while streaming ${plan.sizeMb} MB`, "above", megabytes, twiceGo),
    row("provider CPU per echo call, c=1", "c1-cpu", cpu, twiceGo),
    row("provider CPU per echo call, c=32", "c32-cpu", cpu, twiceGo),
    row("Invoke p50, c=1", "c1", ms, twiceGo, p50),
    row("Invoke p50, c=32", "c32", ms, twiceGo, p50),
    row("bash stream throughput", "mbps", mbps, { ratio: 1, against: "go", higher: true }),
    row("Kill → exit", "kill", ms, { ratio: 3, against: "go" }),
  ];
}

/** The reference value a row's target names. */
function reference(row: Row, samples: Samples): { value: number; label: string } {
  const against = row.target?.against ?? "go";
  if (against === "node") {
    const value = median(samples.get(nodeFloor, "start"));
    return { value, label: `\`node -e 0\` (${ms(value)})` };
  }
  if (against === "http2") {
    const value = median(samples.get(http2Floor, row.figure));
    return { value, label: `one bare node:http2 server (${row.format(value)})` };
  }
  return { value: row.reduce(samples.get("go", row.figure)), label: "Go" };
}

/** Whether `v` meets the row's target against `ref`. */
function meets(target: NonNullable<Row["target"]>, v: number, ref: number): boolean {
  return target.higher ? v / ref >= target.ratio : v / ref <= target.ratio;
}

/**
 * Where the Node floor stands against a row's target, and the judged contender against the floor:
 * "floor 2.27×: out of Node's reach; B 1.47× the floor".
 */
function floorStance(
  row: Row,
  refValue: number,
  floorValue: number,
  judged: { letter: string; value: number },
): string {
  const target = row.target as NonNullable<Row["target"]>;
  const ours = `${judged.letter} ${formatRatio(judged.value / floorValue)} the floor`;
  if (target.against === "http2") return `the reference is the Node floor; ${ours}`;
  if (!Number.isFinite(floorValue) || !Number.isFinite(refValue)) return "the floor: not measured";
  const reach = meets(target, floorValue, refValue) ? "within Node's reach" : "out of Node's reach";
  return `floor ${formatRatio(floorValue / refValue)}: ${reach}; ${ours}`;
}

/**
 * The table: Go, the Node floor and each harness-tool contender (their ratios to Go), the second
 * over the first, the target's ratios and where the floor stands against the target.
 */
function table(plan: Plan, contenders: readonly Contender[], samples: Samples): { lines: string[]; figures: Figure[] } {
  const [first, second] = contenders;
  const judged = second ?? first;
  const letter = (i: number) => String.fromCharCode(65 + i);
  const judgedLetter = letter(judged ? contenders.indexOf(judged) : 0);
  const headers = ["figure", "Go", "Node floor (bare node:http2 server)"];
  headers.push(...contenders.map((c, i) => `${letter(i)}: harness-tool ${c.label}`));
  if (first && second) headers.push("B / A");
  headers.push(`target: A, B, … against it; the Node floor against it, ${judgedLetter} against the floor`);
  const lines = [`| ${headers.join(" | ")} |`, `| ${headers.map(() => "---").join(" | ")} |`];
  const figures: Figure[] = [];
  for (const row of rows(plan)) {
    const go = row.reduce(samples.get("go", row.figure));
    const value = (key: string) => row.reduce(samples.get(key, row.figure));
    const floorValue = value(http2Floor);
    const processes = (key: string) =>
      row.figure === "idle" ? `, ${median(samples.get(key, "processes"))} processes` : "";
    const cells = [row.name, row.format(go)];
    for (const key of [http2Floor, ...contenders.map((c) => c.key)])
      cells.push(`${row.format(value(key))} (${formatRatio(value(key) / go)} Go${processes(key)})`);
    if (first && second) cells.push(formatRatio(value(second.key) / value(first.key)));
    const ref = reference(row, samples);
    const target = row.target;
    if (target) {
      const ok = (v: number) => meets(target, v, ref.value);
      const each = contenders.map(
        (c, i) => `${letter(i)} ${formatRatio(value(c.key) / ref.value)} ${ok(value(c.key)) ? "pass" : "miss"}`,
      );
      const stance = judged
        ? `; ${floorStance(row, ref.value, floorValue, { letter: judgedLetter, value: value(judged.key) })}`
        : "";
      cells.push(`${target.higher ? "≥" : "≤"} ${target.ratio}× ${ref.label}: ${each.join(", ")}${stance}`);
      if (judged) {
        const v = value(judged.key);
        const measured = Number.isFinite(v) && Number.isFinite(ref.value);
        figures.push({
          name: `${row.name}: ${judged.label}`,
          value: row.format(v),
          baseline: `${ref.label.replace(/ \(.*\)$/, "")} ${row.format(ref.value)}`,
          ...(measured ? { ratio: v / ref.value } : {}),
          target: `${target.higher ? "≥" : "≤"} ${target.ratio}×`,
          verdict: !measured ? "FAIL" : ok(v) ? "pass" : "miss",
          note: `Node floor ${row.format(floorValue)}; ${floorStance(row, ref.value, floorValue, { letter: "ours", value: v })}`,
        });
      }
    } else cells.push("");
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return { lines, figures };
}

/** Rows with a missing value (a contender that produced no samples), one line each. */
function missingValues(
  plan: Plan,
  contenders: readonly Contender[],
  samples: Samples,
  failed: ReadonlyMap<string, string>,
): string[] {
  const out: string[] = [];
  for (const c of [{ key: "go", label: "Go" }, { key: http2Floor, label: "the Node floor" }, ...contenders])
    if (!failed.has(c.key))
      for (const row of rows(plan))
        if (!Number.isFinite(row.reduce(samples.get(c.key, row.figure))))
          out.push(`${c.label}: no ${row.name} measured`);
  if (!failed.has(nodeFloor) && samples.get(nodeFloor, "start").length === 0)
    out.push("the `node -e 0` floor: not measured");
  return out;
}

/** The cost-table suite. */
export const costTableSuite: Suite = {
  id: "cost-table",
  title: "Cost table, one run (Go against harness-tool before and after, with the floors, through go-plugin)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const plan: Plan = {
      rounds: context.runs ?? (context.quick ? 1 : 10),
      c1: context.quick ? 200 : 2000,
      c32: context.quick ? 1000 : 10_000,
      sizeMb: context.quick ? 32 : 200,
      settleMs: context.quick ? 300 : 1000,
    };
    const go = buildBenchGo();
    if ("skip" in go)
      return {
        id: this.id,
        title: this.title,
        method: [],
        figures: [failedFigure("cost table", go.skip)],
        notes: [go.skip],
      };
    const ws = createWorkspace("cost-table");
    const spec = process.env["HARNESS_TOOL_COST_CONTENDERS"] || defaultContenders;
    const contenders = await harnessContenders(ws, spec, context.log);
    const floor: Contender = {
      key: http2Floor,
      label: "Node floor (bare node:http2 server)",
      command: process.execPath,
      args: [await bundle(ws, "bench/fixtures/http2-tool-server.ts", "cost-http2")],
      env: {},
    };
    const all: Contender[] = [{ key: "go", label: "Go", command: go.provider, args: [], env: {} }, ...contenders];
    context.log(`cost-table: writing ${plan.sizeMb} MB of data`);
    const file = writeDataFile(ws.root, plan.sizeMb);
    const loadAtStart = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
    const host = hostOwnChoices(go.host);
    let measured: { samples: Samples; failed: Map<string, string> };
    try {
      measured = await measure(context, host, all, floor, plan, file, ws);
    } finally {
      await host.close();
    }
    const { samples, failed } = measured;
    const { lines, figures } = table(plan, contenders, samples);
    const floors = `Floors, same run: \`node -e 0\` spawn → exit ${ms(median(samples.get(nodeFloor, "start")))}; the Node floor column is one bare node:http2 tool server process (bench/fixtures/http2-tool-server.ts: gRPC framed by hand, \`echo\` and a streaming \`bash\`, no validation, no supervisor), measured as the contenders are. "Out of Node's reach": the floor itself misses the target.`;
    const retained = [...all, floor].map((c) => {
      const before = samples.get(c.key, "before-stream");
      return `${c.label} ${megabytes(before[0] ?? Number.NaN)} → ${megabytes(before[before.length - 1] ?? Number.NaN)}`;
    });
    const growth = `The long-lived instances' tree VmRSS just before their stream, first round → last: ${retained.join("; ")}.`;
    return {
      id: this.id,
      title: this.title,
      method: [
        `Through the go-plugin ${benchGoPluginVersion} host of bench/go/host, configured as the kernel; Node ${process.version}; ${plan.rounds} interleaved round(s), the order rotating; load average ${loadAtStart} at start, ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")} at the end.`,
        "Each round and contender (the Node floor included): a fresh launch (spawn → GetSchema reply; Configure; the launched process tree's VmRSS after a pause; Kill() → exit), then on a long-lived instance (Configure'd, warmed up) the echo blocks and the stream.",
        `Echo: ${plan.c1} calls at c=1 and ${plan.c32} at c=32 per round; CPU per call from the tree's schedstat around each block (median of rounds); p50 of the pooled latencies. Stream: \`bash\` running \`cat\` of ${plan.sizeMb} MB, every chunk read and hashed by the host; the tree's VmRSS polled every 5 ms, its peak and its peak above the reading before the stream.`,
        `harness-tool contenders (HARNESS_TOOL_COST_CONTENDERS=${spec}): each revision's kernel bench provider bundled by that revision's own \`harness-tool bundle\` (tree: this checkout's); supervisor default = \`node <bundle>\` (the runtime chooses: the Node supervisor at e6bedf1), exec = the host executes the bundle's file as the kernel does (since the Go supervisor is the default, its sh line starts the Go program before any Node), node = HARNESS_TOOL_SUPERVISOR_BINARY=node (the Node supervisor), go-execve = HARNESS_TOOL_SUPERVISOR_BINARY=<the Go program> (one Node start, then the Go program in its place), go-launcher = the host launches the Go program, which starts node. Ratios in the cells are against Go; the verdicts judge the second contender (by default this tree as the kernel launches it).`,
      ],
      table: [...lines, "", floors, "", growth],
      figures,
      notes: [],
      failures: [...failed.values(), ...missingValues(plan, contenders, samples, failed)],
    };
  },
};
