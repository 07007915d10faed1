/**
 * Kill() → exit and the 200 MB `bash` stream, A/B: harness-tool as it was at a base commit, as this
 * checkout has it, and the Go provider, each launched by the go-plugin v1.8.0 host of
 * bench/kernel-host.ts, in interleaved rounds (the order rotating). The evidence behind
 * bench/RESULTS.md's notes on Kill and streams. Run:
 * `node --conditions=harness-tool-source --import tsx bench/kernel-kill-stream-ab.ts <kill|stream> [rounds] [base]`
 * (base: a commit, default HEAD; kill: Kill() 300 ms after Configure, a fresh launch per round;
 * stream: one launch each, an 8 MB warm-up, then per round `cat` of a 200 MB file with the serving
 * process's VmRSS polled every 5 ms for its peak above idle). AB_FLOORS=bare,http2 adds the
 * bare servers; AB_AFTER_ENV sets variables for this checkout's provider only;
 * AB_SUPERVISOR_BINARIES=<base's build>,<this checkout's build> adds both bundles again under those
 * supervisor programs (HARNESS_TOOL_SUPERVISOR_BINARY, supervisor-go/).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { bundleCommand } from "../cli/commands/bundle-command.js";
import { createWorkspace, removeAllWorkspaces, repoRoot } from "./bench-workspace.js";
import { bundleAtCommit, invokeRequest, rssKb, servingPid } from "./kernel-contenders.js";
import { buildBenchGo, KernelHost } from "./kernel-host.js";
import { median, roundRobinOrder, sleep } from "./measure.js";
import { peakWhile, writeDataFile } from "./streams.js";

const mb = 1_000_000;
const [scenario = "kill", roundsText = "15", baseArg = "HEAD"] = process.argv.slice(2);
if (scenario !== "kill" && scenario !== "stream") throw new Error(`unknown scenario ${scenario} (kill, stream)`);
const rounds = Number(roundsText);
const go = buildBenchGo();
if ("skip" in go) throw new Error(go.skip);
const base = spawnSync("git", ["rev-parse", "--short", baseArg], { cwd: repoRoot, encoding: "utf8" }).stdout.trim();

const ws = createWorkspace("kill-stream-ab");
const silent = new Writable({ write: (_c, _e, done) => done() });
/** `harness-tool bundle` of a repository file into the workspace. */
async function bundled(entry: string, dir: string): Promise<string> {
  const outfile = path.join(ws.root, dir, "provider.mjs");
  mkdirSync(path.dirname(outfile), { recursive: true });
  await bundleCommand(path.join(repoRoot, entry), { outfile, external: [], out: silent });
  return outfile;
}
const after = await bundled("bench/fixtures/kernel-bench-provider.ts", "after");
const before = await bundleAtCommit(ws, base);
// AB_AFTER_ENV="NAME=value ...": variables for this checkout's provider only (a V8 flag in
// NODE_OPTIONS, a glibc malloc tunable: what they change, measured).
const afterEnv = Object.fromEntries(
  (process.env["AB_AFTER_ENV"] ?? "")
    .split(" ")
    .filter((pair) => pair.includes("="))
    .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);
// AB_SUPERVISOR_BINARIES: the Go supervisor built at the base and here, each beside its own bundle.
const [beforeSupervisor, afterSupervisor] = (process.env["AB_SUPERVISOR_BINARIES"] ?? "").split(",");
const contenders = [
  { id: `before (${base})`, command: process.execPath, args: [before], env: {} },
  { id: "after", command: process.execPath, args: [after], env: afterEnv },
  ...(beforeSupervisor && afterSupervisor
    ? [
        {
          id: `before (${base}), Go supervisor`,
          command: process.execPath,
          args: [before],
          env: { HARNESS_TOOL_SUPERVISOR_BINARY: beforeSupervisor },
        },
        {
          id: "after, Go supervisor",
          command: process.execPath,
          args: [after],
          env: { ...afterEnv, HARNESS_TOOL_SUPERVISOR_BINARY: afterSupervisor },
        },
      ]
    : []),
  { id: "go", command: go.provider, args: [] as string[], env: {} },
  // AB_FLOORS=bare,http2: the bare servers of bench/fixtures too (grpc-js; gRPC framed by hand on node:http2).
  ...(await Promise.all(
    (process.env["AB_FLOORS"] ?? "")
      .split(",")
      .filter((name) => name === "bare" || name === "http2")
      .map(async (name) => ({
        id: name,
        command: process.execPath,
        args: [await bundled(`bench/fixtures/${name === "bare" ? "bare" : "http2"}-tool-server.ts`, name)],
        env: {},
      })),
  )),
];
const samples = new Map<string, number[]>();
const add = (key: string, v: number) => samples.set(key, [...(samples.get(key) ?? []), v]);
const host = new KernelHost(go.host);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const loadAtStart = load();

async function killRounds(): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const c of roundRobinOrder(contenders, round)) {
      const id = `${c.id}-${round}`;
      await host.launch(id, c.command, c.args, c.env);
      await host.configure(id);
      await sleep(300);
      add(`${c.id} kill ms`, await host.kill(id));
    }
  }
}

async function streamRounds(): Promise<void> {
  const file = writeDataFile(ws.root, 200);
  const pids = new Map<string, number>();
  for (const c of contenders) {
    const launched = await host.launch(c.id, c.command, c.args, c.env);
    await host.configure(c.id);
    await host.stream(c.id, invokeRequest("bash", { command: `head -c ${8 * mb} ${file}` }, ws.root));
    pids.set(c.id, servingPid(launched.pid));
  }
  await sleep(1000);
  const idle = new Map([...pids].map(([id, pid]) => [id, rssKb(pid)]));
  const cat = invokeRequest("bash", { command: `cat ${file}` }, ws.root);
  for (let round = 0; round < rounds; round++) {
    for (const c of roundRobinOrder(contenders, round)) {
      const pid = pids.get(c.id) as number;
      const { result, peakKb } = await peakWhile(pid, host.stream(c.id, cat));
      if (result.bytes !== 200 * mb || result.terminal !== 5)
        throw new Error(`${c.id}: ${result.bytes} bytes, last event ${result.terminal}`);
      add(`${c.id} MB/s`, result.bytes / mb / (result.ms / 1000));
      add(`${c.id} MB above idle`, (peakKb - (idle.get(c.id) ?? peakKb)) / 1024);
      add(`${c.id} events`, result.events);
    }
  }
}

try {
  await (scenario === "kill" ? killRounds() : streamRounds());
} finally {
  await host.close();
  removeAllWorkspaces();
}
console.log(`${scenario}, ${rounds} interleaved rounds, load average at start ${loadAtStart}, at end ${load()}`);
for (const [key, values] of samples) {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (f: number) => (sorted[Math.floor(f * (sorted.length - 1))] as number).toFixed(1);
  console.log(`${key}: median ${median(values).toFixed(1)} (quartiles ${q(0.25)}–${q(0.75)}, n=${values.length})`);
}
