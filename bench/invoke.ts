/**
 * Suite 4, Invoke, as the kernel calls it: the go-plugin v1.8.0 host (bench/kernel-host.ts) sends
 * `echo` Invokes to each contender at concurrency 1 and 32 (the host's own cost is Go's, small and
 * the same for every contender), timing each call from stream open to the stream's end, and reads
 * the provider's CPU time from /proc around each block.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { hottestFunctions } from "./cpu-profile.js";
import { invokeRequest, kernelBench, launchContender, treeCpuMs, type KernelContender } from "./kernel-contenders.js";
import { beforeAfter, otherRows, Samples, threeWay } from "./kernel-figures.js";
import { benchGoPluginVersion, type KernelHost } from "./kernel-host.js";
import { median, percentile, roundRobinOrder } from "./measure.js";
import { formatMs, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/** Invoke targets (against the bare server). */
const targets = { latencyRatio: 1.25, cpuRatio: 1.3 } as const;

/** The contenders launched and Configure'd, with `--cpu-prof` on harness-tool when profiling. */
export async function launchAll(
  host: KernelHost,
  contenders: readonly KernelContender[],
  profileDir: string | undefined,
): Promise<Map<string, { contender: KernelContender; pid: number }>> {
  const live = new Map<string, { contender: KernelContender; pid: number }>();
  for (const c of contenders) {
    const profiled =
      profileDir !== undefined && c.id === "harness-tool"
        ? { ...c, args: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, ...c.args] }
        : c;
    const launched = await launchContender(host, profiled, c.id, true);
    live.set(c.id, { contender: c, pid: launched.pid });
  }
  return live;
}

/** The Invoke suite. */
export const invokeSuite: Suite = {
  id: "invoke",
  title: "4. Invoke (round trip and provider CPU, through go-plugin)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const rounds = context.runs ?? (context.quick ? 1 : 5);
    const callsAt1 = context.quick ? 200 : 2000;
    const callsAt32 = context.quick ? 1000 : 10_000;
    const bench = await kernelBench(context, false);
    if ("skip" in bench)
      return {
        id: this.id,
        title: this.title,
        method: [],
        figures: [failedFigure("Invoke", bench.skip)],
        notes: [bench.skip],
      };
    const { host, contenders, notes } = bench;
    const { ws } = await context.packagedWorkspace();
    const profileDir = context.profile ? path.join(ws.root, "invoke-cpu-profile") : undefined;
    if (profileDir) mkdirSync(profileDir, { recursive: true });
    const samples = new Samples();
    const failures = new Map<string, string>();
    const echo = invokeRequest("echo", { text: "hello" }, ws.root);
    try {
      const live = await launchAll(host, contenders, profileDir);
      for (const c of contenders) {
        context.log(`invoke: warming up ${c.label}`);
        await host.load(c.id, echo, context.quick ? 200 : 2000, 32);
      }
      for (let round = 0; round < rounds; round++) {
        for (const c of roundRobinOrder(contenders, round)) {
          context.log(`invoke round ${round + 1}/${rounds}: ${c.label}`);
          const pid = live.get(c.id)?.pid ?? -1;
          for (const [key, calls, concurrency] of [
            ["c1", callsAt1, 1],
            ["c32", callsAt32, 32],
          ] as const) {
            const cpuBefore = treeCpuMs(pid);
            const block = await host.load(c.id, echo, calls, concurrency);
            const cpu = treeCpuMs(pid) - cpuBefore;
            samples.add(c.id, key, ...block.latenciesMs);
            samples.add(c.id, `${key}-cpu`, cpu / calls);
            samples.add(c.id, `${key}-rate`, (block.latenciesMs.length / block.wallMs) * 1000);
            if (block.failures > 0) failures.set(c.id, `${block.failures} failed calls, first: ${block.firstFailure}`);
          }
        }
      }
    } finally {
      await host.close();
    }
    const failed = [...failures].map(([id, why]) => `${id}: ${why}`);
    const p = (q: number) => (values: readonly number[]) => percentile(values, q);
    const formatCpu = (ms: number) => `${ms.toFixed(3)} ms`;
    const figures: Figure[] = [];
    for (const level of ["1", "32"] as const) {
      const key = `c${level}` as const;
      figures.push(
        threeWay(`Invoke p50, c=${level}`, samples.three(key, p(50)), formatMs, { maxRatio: targets.latencyRatio }),
        threeWay(`Invoke p99, c=${level}`, samples.three(key, p(99)), formatMs),
        threeWay(
          `provider CPU per call, c=${level}`,
          samples.three(`${key}-cpu`, median),
          formatCpu,
          level === "1" ? { maxRatio: targets.cpuRatio } : {},
          "user+system of the launched process tree over a block, per call (10 ms ticks); median of blocks",
        ),
        ...beforeAfter(`Invoke p50, c=${level}`, samples, key, p(50), formatMs),
        ...otherRows(contenders, `Invoke p50, c=${level}`, samples, key, p(50), formatMs),
        ...otherRows(contenders, `provider CPU per call, c=${level}`, samples, `${key}-cpu`, median, formatCpu),
        ...beforeAfter(`provider CPU per call, c=${level}`, samples, `${key}-cpu`, median, formatCpu),
        threeWay(
          `calls/s, c=${level}`,
          samples.three(`${key}-rate`, median),
          (v) => `${v.toFixed(0)}/s`,
          {},
          "higher is better",
        ),
      );
    }
    const profile: string[] = [];
    if (profileDir) {
      const hot = hottestFunctions(profileDir, 15);
      profile.push(
        `Profile (--profile): harness-tool CPU profile over the suite, supervisor and provider (self time): ${hot.map((h) => `${h.name.replace(/ \/.*\//, " ")} ${h.selfMs.toFixed(0)} ms (${(h.share * 100).toFixed(0)}%)`).join("; ")}`,
      );
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        `The go-plugin ${benchGoPluginVersion} host of bench/go/host launches the contenders of the start-up suite (harness-tool bundled as users ship it with its supervisor, the bare grpc-js server, the Go provider), calls GetSchema and Configure, then sends Invokes of \`echo\` {text: "hello"} through go-plugin's gRPC connection with a raw-bytes codec; each call is timed from opening the stream to its end and must end in a result event.`,
        `Per round and contender (interleaved, the order rotating): ${callsAt1} calls at concurrency 1, then ${callsAt32} at concurrency 32; ${rounds} round(s) after a warm-up of ${context.quick ? 200 : 2000} calls each. Latencies pooled over rounds (p50, p99, nearest rank); CPU per call and calls/s are medians over blocks.`,
        `Targets: p50 at c=1 and c=32 ≤ ${targets.latencyRatio}× the bare server; CPU per call ≤ ${targets.cpuRatio}× the bare server.`,
        ...profile,
      ],
      figures,
      notes,
      failures: failed,
    };
  },
};
