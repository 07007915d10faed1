/**
 * Measuring child processes: wall time, peak RSS through GNU time, time limits that kill the whole
 * process group, and the statistics the tables report (medians, percentiles, ratios).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** GNU time, which reports a process tree's peak RSS (%M: the largest single process, in KiB). */
export const gnuTime = "/usr/bin/time";

/** How one timed command ended. */
export interface TimedRun {
  /** Wall time from spawn to exit, in milliseconds. */
  readonly wallMs: number;
  /** Exit status; null when it was killed. */
  readonly status: number | null;
  readonly timedOut: boolean;
  /** Peak RSS in KiB of the largest single process of the tree (GNU time's %M), when measured. */
  readonly peakRssKb: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of runTimed. */
export interface TimedOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Kill the process group after this long; the run reports timedOut. */
  readonly timeoutMs: number;
  /** Wrap the command in GNU time to measure peak RSS (default true). */
  readonly measureRss?: boolean;
}

let scratchCounter = 0;

const liveChildren = new Set<ChildProcess>();

/** Remembers a spawned child until it exits, so killAllChildren() can end it if the bench is interrupted. */
export function trackChild(child: ChildProcess): ChildProcess {
  liveChildren.add(child);
  child.on("exit", () => liveChildren.delete(child));
  return child;
}

/** Kills every tracked child's process group (on exit, error or Ctrl-C). */
export function killAllChildren(): void {
  for (const child of liveChildren) killTree(child);
  liveChildren.clear();
}

/** Runs a command to completion (or to its time limit) and measures it. Never rejects for a failing command. */
export async function runTimed(command: string, args: readonly string[], options: TimedOptions): Promise<TimedRun> {
  const measureRss = options.measureRss !== false && existsSync(gnuTime);
  const rssFile = path.join(os.tmpdir(), `harness-tool-bench-rss-${process.pid}-${scratchCounter++}.txt`);
  const [cmd, argv] = measureRss ? [gnuTime, ["-f", "%M", "-o", rssFile, command, ...args]] : [command, [...args]];
  const started = performance.now();
  const child = spawn(cmd, argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  trackChild(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killTree(child);
  }, options.timeoutMs);
  const status = await new Promise<number | null>((resolve) => {
    child.on("error", (e) => {
      err.push(Buffer.from(String(e)));
      resolve(null);
    });
    child.on("close", (code) => resolve(code));
  });
  clearTimeout(timer);
  const wallMs = performance.now() - started;
  let peakRssKb: number | undefined;
  if (measureRss && existsSync(rssFile)) {
    peakRssKb = parsePeakRss(readFileSync(rssFile, "utf8"));
    rmSync(rssFile, { force: true });
  }
  return {
    wallMs,
    status,
    timedOut,
    peakRssKb,
    stdout: Buffer.concat(out).toString("utf8"),
    stderr: Buffer.concat(err).toString("utf8"),
  };
}

/** The largest %M figure in a GNU time output file (one line per run when appended with -a). */
export function parsePeakRss(text: string): number | undefined {
  let peak: number | undefined;
  for (const line of text.split("\n")) {
    const m = /^\s*(\d+)\s*$/.exec(line);
    if (m) peak = Math.max(peak ?? 0, Number(m[1]));
  }
  return peak;
}

/** SIGKILLs a detached child's whole process group (the child and anything it spawned). */
export function killTree(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** The median of the values; NaN for none. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The p-th percentile (nearest rank) of the values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** The order of contenders for round `round`: rotated so no contender always runs first. */
export function roundRobinOrder<T>(contenders: readonly T[], round: number): T[] {
  const n = contenders.length;
  return contenders.map((_, i) => contenders[(i + round) % n] as T);
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** VmRSS of a live process in KiB, from /proc; undefined when it is gone or /proc is absent. */
export function residentSetKb(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a live process has used, in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** `--<name>=<digits>` from a bench script's arguments, or `fallback`. */
export function numericOption(args: readonly string[], name: string, fallback: number): number {
  return Number(/=(\d+)$/.exec(args.find((a) => a.startsWith(`--${name}=`)) ?? "")?.[1] ?? fallback);
}

/** The per-call A/B benches' load levels: `--c1` echo calls one at a time, `--c32` at 32 in flight. */
export function echoLevels(args: readonly string[]) {
  return [
    { key: "c1", calls: numericOption(args, "c1", 2000), concurrency: 1 },
    { key: "c32", calls: numericOption(args, "c32", 10_000), concurrency: 32 },
  ] as const;
}

/** `node -e 0`, spawn → exit, ms: Node's own start-up floor. */
export function bareNodeMs(node: string): number {
  const started = performance.now();
  const run = spawnSync(node, ["-e", "0"], { timeout: 10_000 });
  if (run.status !== 0) throw new Error(`${node} -e 0 exited ${run.status ?? run.signal} (is it a node binary?)`);
  return performance.now() - started;
}

/** `promise`, or a rejection naming `what` once `ms` have passed without it settling. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} took more than ${ms / 1000} s (the machine is overloaded or it hangs)`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
