/**
 * A/B of the provider's gRPC server (HARNESS_TOOL_TRANSPORT: grpc-js, the default, against http2,
 * gRPC on node:http2 with runtime/transport/node-grpc/'s framing), with the Go provider as the
 * floor: the kernel bench provider (bench/fixtures/kernel-bench-provider.ts) bundled from this
 * checkout's sources by `harness-tool bundle`, launched by the go-plugin v1.8.0 host of
 * bench/kernel-host.ts as the kernel launches it (supervisor on unless --unsupervised). In
 * interleaved rounds (the order rotating): spawn → first GetSchema reply and the idle RSS of the
 * launched tree 500 ms later (--launches launches each, the first round uncounted); then, on
 * `--replicas` processes each, `echo` Invokes at concurrency 1 and 32 with each tree's CPU read
 * from /proc (schedstat) around each block. Prints medians and the median of the per-round ratios
 * http2 / grpc-js, with the load average at start and end. With --stream=<MB>, each round also
 * streams `cat` of a file that size through each contender's first replica: throughput and the
 * serving process's peak RSS above its idle.
 * Run: `node --conditions=harness-tool-source --import tsx bench/transport-ab.ts [--rounds=6] [--launches=8] [--c1=2000] [--c32=10000] [--replicas=2] [--stream=200] [--unsupervised]`
 */
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { bundleCommand } from "../cli/commands/bundle-command.js";
import { createWorkspace, removeAllWorkspaces, repoRoot } from "./bench-workspace.js";
import { invokeRequest, loadBlock, rssKb, servingPid, treeRssKb } from "./kernel-contenders.js";
import { peakWhile, writeDataFile } from "./streams.js";
import { buildBenchGo, KernelHost } from "./kernel-host.js";
import { echoLevels, median, numericOption, percentile, roundRobinOrder, sleep } from "./measure.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => numericOption(args, name, fallback);
const rounds = option("rounds", 6);
const launches = option("launches", 8);
const replicas = option("replicas", 2);
const levels = echoLevels(args);
const streamMb = option("stream", 0);
const common = args.includes("--unsupervised") ? { HARNESS_TOOL_SUPERVISOR: "off" } : {};

const loadavg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const log = (line: string) => process.stderr.write(`${line}\n`);

const go = buildBenchGo();
if ("skip" in go) throw new Error(go.skip);
const ws = createWorkspace("transport-ab");
try {
  const bundle = path.join(ws.root, "provider", "provider.mjs");
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  await bundleCommand(path.join(repoRoot, "bench/fixtures/kernel-bench-provider.ts"), {
    outfile: bundle,
    external: [],
    out: silent,
  });
  const contenders = [
    { id: "grpc-js", command: process.execPath, args: [bundle], env: { ...common } },
    { id: "http2", command: process.execPath, args: [bundle], env: { ...common, HARNESS_TOOL_TRANSPORT: "http2" } },
    { id: "go", command: go.provider, args: [] as string[], env: {} },
  ];
  const loadAtStart = loadavg();
  log(`load average at start: ${loadAtStart}`);
  const host = new KernelHost(go.host);
  const samples = new Map<string, number[]>();
  const add = (key: string, round: number, value: number, share = 1) => {
    const values = samples.get(key) ?? [];
    values[round] = (values[round] ?? 0) + value / share;
    samples.set(key, values);
  };
  try {
    // Start-up and idle memory: one launch per contender per round, the first round a warm-up.
    for (let round = 0; round <= launches; round++) {
      for (const c of roundRobinOrder(contenders, round)) {
        const id = `start-${c.id}-${round}`;
        const launched = await host.launch(id, c.command, c.args, c.env);
        await sleep(500);
        const rss = treeRssKb(launched.pid) / 1024;
        await host.kill(id);
        if (round === 0) continue;
        add(`${c.id} schema`, round - 1, launched.schemaMs);
        add(`${c.id} rss`, round - 1, rss);
      }
    }
    log(`start-up done (${launches} launches each)`);
    const instances = contenders.flatMap((c) =>
      Array.from({ length: replicas }, (_, r) => ({ ...c, instance: `${c.id}/${r}`, pid: 0 })),
    );
    const echo = invokeRequest("echo", { text: "hello" }, ws.root);
    const file = streamMb > 0 ? writeDataFile(ws.root, streamMb) : "";
    const cat = invokeRequest("bash", { command: `cat ${file}` }, ws.root);
    for (const c of instances) {
      c.pid = (await host.launch(c.instance, c.command, c.args, c.env)).pid;
      await host.configure(c.instance);
      await host.load(c.instance, echo, 2000, 32);
    }
    await sleep(500);
    const idleKb = new Map(instances.map((c) => [c.instance, rssKb(servingPid(c.pid))]));
    for (let round = 0; round < rounds; round++) {
      for (const c of roundRobinOrder(instances, round)) {
        for (const level of levels) {
          const block = await loadBlock(host, c.instance, c.pid, echo, level);
          add(`${c.id} ${level.key} cpu`, round, block.cpuPerCallMs, replicas);
          add(`${c.id} ${level.key} p50`, round, block.p50Ms, replicas);
        }
        if (streamMb === 0 || !c.instance.endsWith("/0")) continue;
        const pid = servingPid(c.pid);
        const { result, peakKb } = await peakWhile(pid, host.stream(c.instance, cat));
        if (result.bytes !== streamMb * 1_000_000 || result.terminal !== 5)
          throw new Error(
            `${c.instance}: the stream delivered ${result.bytes} bytes, ended with event ${result.terminal}`,
          );
        add(`${c.id} mbps`, round, result.bytes / 1_000_000 / (result.ms / 1000));
        add(`${c.id} above`, round, (peakKb - (idleKb.get(c.instance) ?? peakKb)) / 1024);
      }
      log(`round ${round + 1}/${rounds} done`);
    }
  } finally {
    await host.close();
  }
  const ratio = (id: string, to: string, key: string): string => {
    const mine = samples.get(`${id} ${key}`) ?? [];
    const theirs = samples.get(`${to} ${key}`) ?? [];
    const each = mine.map((v, i) => v / (theirs[i] as number));
    return `${median(each).toFixed(2)} (${percentile(each, 25).toFixed(2)}–${percentile(each, 75).toFixed(2)})`;
  };
  const figures = [
    ["schema", "spawn → GetSchema, ms"],
    ["rss", "idle RSS of the tree, MB"],
    ["c1 cpu", "CPU per echo call c=1, ms"],
    ["c32 cpu", "CPU per echo call c=32, ms"],
    ["c1 p50", "Invoke p50 c=1, ms"],
    ["c32 p50", "Invoke p50 c=32, ms"],
    ...(streamMb > 0
      ? ([
          ["mbps", `\`cat\` of ${streamMb} MB, MB/s`],
          ["above", "peak RSS above idle while streaming, MB"],
        ] as const)
      : []),
  ] as const;
  const rows = [
    "figure | grpc-js | http2 | Go | http2 / grpc-js (per round, middle half) | http2 / Go",
    "--- | --- | --- | --- | --- | ---",
  ];
  for (const [key, label] of figures) {
    const m = (id: string) => median(samples.get(`${id} ${key}`) ?? []).toFixed(key.endsWith("cpu") ? 3 : 1);
    rows.push(
      `${label} | ${m("grpc-js")} | ${m("http2")} | ${m("go")} | ${ratio("http2", "grpc-js", key)} | ${ratio("http2", "go", key)}`,
    );
  }
  process.stdout.write(`${rows.join("\n")}\n\nload average: ${loadAtStart} at start, ${loadavg()} at end\n`);
} finally {
  removeAllWorkspaces();
}
