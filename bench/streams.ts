/**
 * Suite 6, streams, as the kernel reads them: the go-plugin v1.8.0 host (bench/kernel-host.ts)
 * invokes each contender's `bash` with `cat <file>` and reads every output chunk (hashing it, as a
 * kernel that keeps nothing), against the host running `cat <file>` itself (the bare pipe); the
 * serving process's RSS is polled during each stream for its peak above the idle RSS before it.
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { invokeRequest, kernelBench, peakRssKb, rssKb, servingPid } from "./kernel-contenders.js";
import { beforeAfter, otherRows, Samples, threeWay } from "./kernel-figures.js";
import { benchGoPluginVersion } from "./kernel-host.js";
import { launchAll } from "./invoke.js";
import { median, roundRobinOrder, sleep } from "./measure.js";
import { failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

const mb = 1_000_000;
/** Stream targets: as the kernel pays them, against the same provider in Go. */
const targets = { throughputVsGo: 1.0, peakAboveIdleMb: 32 } as const;

/** Writes `size` MB of random bytes (one random MB repeated) and returns the file. */
export function writeDataFile(dir: string, size: number): string {
  const file = path.join(dir, `stream-${size}mb.bin`);
  const block = randomBytes(mb);
  const fd = openSync(file, "w");
  for (let i = 0; i < size; i++) writeSync(fd, block);
  closeSync(fd);
  return file;
}

/**
 * Polls `pid`'s VmRSS (or what `pid` reads, a process tree's) every 5 ms until `until` settles;
 * resolves with the largest reading (KiB).
 */
export async function peakWhile<T>(
  pid: number | (() => number),
  until: Promise<T>,
): Promise<{ result: T; peakKb: number }> {
  const read = typeof pid === "number" ? () => rssKb(pid) : pid;
  let peakKb = read();
  let done = false;
  const poll = (async () => {
    while (!done) {
      peakKb = Math.max(peakKb, read());
      await sleep(5);
    }
  })();
  try {
    return { result: await until, peakKb };
  } finally {
    done = true;
    await poll;
  }
}

const range = (values: readonly number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;

/** The streams suite. */
export const streamsSuite: Suite = {
  id: "streams",
  title: "6. Streams (bash streaming a file to the kernel, through go-plugin)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const sizeMb = context.quick ? 32 : 200;
    const rounds = context.runs ?? (context.quick ? 1 : 5);
    const bench = await kernelBench(context, false);
    if ("skip" in bench)
      return {
        id: this.id,
        title: this.title,
        method: [],
        figures: [failedFigure("streams", bench.skip)],
        notes: [bench.skip],
      };
    const { host, contenders, notes } = bench;
    const { ws } = await context.packagedWorkspace();
    context.log(`streams: writing ${sizeMb} MB of data`);
    const file = writeDataFile(ws.root, sizeMb);
    const expected = sizeMb * mb;
    const samples = new Samples();
    const cat = invokeRequest("bash", { command: `cat ${file}` }, ws.root);
    try {
      const live = await launchAll(host, contenders, undefined);
      for (const c of contenders)
        await host.stream(c.id, invokeRequest("bash", { command: `head -c ${8 * mb} ${file}` }, ws.root));
      await sleep(context.quick ? 200 : 1000);
      // Idle: after Configure and the warm-up stream, before any measured one.
      const idle = new Map([...live].map(([id, { pid }]) => [id, rssKb(servingPid(pid))]));
      for (let round = 0; round < rounds; round++) {
        for (const which of roundRobinOrder([...contenders.map((c) => c.id), "pipe"], round)) {
          context.log(`streams round ${round + 1}/${rounds}: ${which}`);
          if (which === "pipe") {
            const run = await host.pipe("cat", [file]);
            if (run.bytes !== expected) throw new Error(`cat delivered ${run.bytes} of ${expected} bytes to the host`);
            samples.add("pipe", "mbps", run.bytes / mb / (run.ms / 1000));
            continue;
          }
          const pid = servingPid(live.get(which)?.pid ?? -1);
          const { result, peakKb } = await peakWhile(pid, host.stream(which, cat));
          if (result.bytes !== expected || result.terminal !== 5) {
            throw new Error(
              `${which}: the stream delivered ${result.bytes} of ${expected} bytes and ended with event ${result.terminal}`,
            );
          }
          samples.add(which, "mbps", result.bytes / mb / (result.ms / 1000));
          samples.add(which, "above", (peakKb - (idle.get(which) ?? peakKb)) / 1024);
          samples.add(which, "events", result.events);
          samples.add(which, "hwm", peakRssKb(pid) / 1024);
        }
      }
    } finally {
      await host.close();
    }
    const mbps = (v: number) => `${v.toFixed(0)} MB/s`;
    const figures: Figure[] = [
      threeWay(
        `bash \`cat\` of ${sizeMb} MB, throughput`,
        samples.three("mbps", median),
        mbps,
        { against: "go", minRatio: targets.throughputVsGo },
        `higher is better; MB/s per round: harness-tool ${range(samples.get("harness-tool", "mbps"))}, bare ${range(samples.get("bare", "mbps"))}, Go ${range(samples.get("go", "mbps"))}; the host's bare pipe ${median(samples.get("pipe", "mbps")).toFixed(0)} MB/s; events per stream ${median(samples.get("harness-tool", "events"))} / ${median(samples.get("bare", "events"))} / ${median(samples.get("go", "events"))}`,
      ),
      threeWay(
        "peak RSS above idle during the stream (serving process)",
        samples.three("above", median),
        (v) => `${v.toFixed(1)} MB`,
        { maxValue: { value: targets.peakAboveIdleMb, label: `${targets.peakAboveIdleMb} MB` } },
        `VmHWM at the end: harness-tool ${median(samples.get("harness-tool", "hwm")).toFixed(0)} MB, bare ${median(samples.get("bare", "hwm")).toFixed(0)} MB, Go ${median(samples.get("go", "hwm")).toFixed(0)} MB`,
      ),
    ];
    figures.push(
      ...beforeAfter("bash `cat` throughput", samples, "mbps", median, mbps),
      ...beforeAfter("peak RSS above idle during the stream", samples, "above", median, (v) => `${v.toFixed(1)} MB`),
      ...otherRows(contenders, "bash `cat` throughput", samples, "mbps", median, mbps),
      ...otherRows(
        contenders,
        "peak RSS above idle during the stream",
        samples,
        "above",
        median,
        (v) => `${v.toFixed(1)} MB`,
      ),
    );
    return {
      id: this.id,
      title: this.title,
      method: [
        `The contenders of the start-up suite launched by the go-plugin ${benchGoPluginVersion} host and Configure'd, each warmed up with one 8 MB stream; a data file of ${sizeMb} MB (one random MB repeated).`,
        `Per round (${rounds}, interleaved, the order rotating): each contender's \`bash\` runs \`cat <file>\` and the host reads every output chunk through go-plugin's connection, hashing the data (SHA-256) and keeping nothing; throughput is bytes over the time from opening the stream to its end. The bare pipe is the host spawning \`cat <file>\` itself and hashing its stdout. Every byte must arrive and the stream end in a result.`,
        "Memory: the serving process's VmRSS polled every 5 ms during each stream; the figure is its peak minus its idle VmRSS (after Configure and the warm-up stream, before the measured ones), median of rounds.",
        `Targets: throughput ≥ ${targets.throughputVsGo}× the Go provider's (the pipe, not the provider, should limit); peak RSS above idle ≤ ${targets.peakAboveIdleMb} MB.`,
      ],
      figures,
      notes,
    };
  },
};
