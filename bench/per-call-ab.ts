/**
 * A/B of harness-tool's per-call cost as the kernel measures it (bench/RESULTS.md, invoke): the
 * kernel bench provider (bench/fixtures/kernel-bench-provider.ts) bundled by this checkout's
 * `harness-tool bundle` from the runtime as it was at each commit named (`git archive`, as
 * HARNESS_TOOL_BENCH_BASE's before/after rows are built), and the bare grpc-js server, all launched
 * supervised by the same go-plugin v1.8.0 host and Configure'd; then interleaved rounds (the order
 * rotating) of `echo` Invokes at concurrency 1 and 32, reading each process tree's CPU from /proc
 * (schedstat) around each block. Prints per contender the medians over rounds of CPU per call and of each
 * block's p50, and the median over rounds of each round's ratio to the first commit and to bare.
 * Each contender runs as several processes (`--replicas`), its value in a round their mean.
 * With --node-options=<flags> the first commit runs again with NODE_OPTIONS=<flags> (a V8 flag's price).
 * With --no-deadline the first commit runs again with Invokes that carry no deadline (the host
 * gives the other contenders' the kernel's 30 s): the deadline's price.
 * Run: `node --conditions=harness-tool-source --import tsx bench/per-call-ab.ts <commit>... [--rounds=6] [--c1=2000] [--c32=10000] [--replicas=2] [--unsupervised] [--node-options=<flags>] [--no-deadline]`
 */
import os from "node:os";
import { createWorkspace, removeAllWorkspaces } from "./bench-workspace.js";
import { bundleAtCommit, invokeRequest, loadBlock } from "./kernel-contenders.js";
import { bundleCommand } from "../cli/commands/bundle-command.js";
import { buildBenchGo, KernelHost } from "./kernel-host.js";
import { echoLevels, median, numericOption, percentile, roundRobinOrder } from "./measure.js";
import { Writable } from "node:stream";
import path from "node:path";
import { repoRoot } from "./bench-workspace.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => numericOption(args, name, fallback);
const commits = args.filter((a) => !a.startsWith("--"));
if (commits.length === 0) throw new Error("name at least one commit");
const rounds = option("rounds", 6);
const levels = echoLevels(args);
const replicas = option("replicas", 2);
const env = args.includes("--unsupervised") ? { HARNESS_TOOL_SUPERVISOR: "off" } : {};

const go = buildBenchGo();
if ("skip" in go) throw new Error(go.skip);
const ws = createWorkspace("per-call-ab");
const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
const log = (line: string) => process.stderr.write(`${line}\n`);
try {
  const contenders: { id: string; file: string; env?: Record<string, string>; noDeadline?: boolean }[] = [];
  for (const [i, commit] of commits.entries()) {
    // The same commit named twice (an A/A run) gets two ids and one bundle.
    contenders.push({
      id: commits.indexOf(commit) === i ? commit : `${commit}#${i}`,
      file: await bundleAtCommit(ws, commit),
    });
  }
  const bare = path.join(ws.root, "bare", "provider.mjs");
  await bundleCommand(path.join(repoRoot, "bench/fixtures/bare-tool-server.ts"), {
    outfile: bare,
    external: [],
    out: silent,
  });
  // --node-options=<flags>: the first commit again, its processes started with NODE_OPTIONS=<flags>.
  const nodeOptions = args.find((a) => a.startsWith("--node-options="))?.slice("--node-options=".length);
  const firstContender = contenders[0];
  if (nodeOptions && firstContender)
    contenders.push({
      ...firstContender,
      id: `${firstContender.id} ${nodeOptions}`,
      env: { NODE_OPTIONS: nodeOptions },
    });
  if (args.includes("--no-deadline") && firstContender)
    contenders.push({ ...firstContender, id: `${firstContender.id} no deadline`, noDeadline: true });
  contenders.push({ id: "bare", file: bare });
  log(
    `load average at start: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const host = new KernelHost(go.host);
  // Per contender and figure, one value per round: the mean over the contender's replicas.
  const samples = new Map<string, number[]>();
  const add = (key: string, round: number, value: number) => {
    const values = samples.get(key) ?? [];
    values[round] = (values[round] ?? 0) + value / replicas;
    samples.set(key, values);
  };
  try {
    // Each contender runs as `replicas` processes: a process's own speed (its JIT, its heap, its
    // core) differs by several percent between launches of the same bundle.
    const instances = contenders.flatMap((c) =>
      Array.from({ length: replicas }, (_, r) => ({ ...c, instance: `${c.id}/${r}`, pid: 0 })),
    );
    const echo = invokeRequest("echo", { text: "hello" }, ws.root);
    for (const c of instances) {
      c.pid = (await host.launch(c.instance, process.execPath, [c.file], { ...env, ...c.env }, c.noDeadline)).pid;
      await host.configure(c.instance);
      await host.load(c.instance, echo, 2000, 32);
    }
    for (let round = 0; round < rounds; round++) {
      for (const c of roundRobinOrder(instances, round)) {
        for (const level of levels) {
          const block = await loadBlock(host, c.instance, c.pid, echo, level);
          add(`${c.id} ${level.key} cpu`, round, block.cpuPerCallMs);
          add(`${c.id} ${level.key} p50`, round, block.p50Ms);
        }
      }
      log(`round ${round + 1}/${rounds} done`);
    }
  } finally {
    await host.close();
  }
  log(
    `load average at end: ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const first = contenders[0]?.id as string;
  /** The median of the per-round ratios, and their middle half (25th–75th percentile). */
  const ratios = (id: string, to: string, key: string): string => {
    const mine = samples.get(`${id} ${key}`) ?? [];
    const theirs = samples.get(`${to} ${key}`) ?? [];
    const each = mine.map((v, i) => v / (theirs[i] as number));
    return `${median(each).toFixed(3)} (${percentile(each, 25).toFixed(2)}–${percentile(each, 75).toFixed(2)})`;
  };
  const rows = [
    "contender | metric | median | / first (per round, middle half) | / bare (per round, middle half)",
    "--- | --- | --- | --- | ---",
  ];
  for (const c of contenders) {
    for (const level of levels) {
      for (const metric of ["cpu", "p50"]) {
        const key = `${level.key} ${metric}`;
        rows.push(
          `${c.id} | ${key} | ${median(samples.get(`${c.id} ${key}`) ?? []).toFixed(3)} ms | ${ratios(c.id, first, key)} | ${ratios(c.id, "bare", key)}`,
        );
      }
    }
  }
  process.stdout.write(`${rows.join("\n")}\n`);
} finally {
  removeAllWorkspaces();
}
