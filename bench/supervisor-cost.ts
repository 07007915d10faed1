/**
 * The supervisor (docs/runtime.md#the-supervisor), measured: spawn → handshake line, spawn →
 * first GetSchema reply and the idle RSS of the launched process tree (supervisor, provider,
 * watchdog), median of N round-robin launches (after one uncounted round) of the bench provider
 * bundled from the sources by `harness-tool bundle`: its executable (supervision decided before the
 * bundle loads, the default), the same bundle behind the launcher it wrote before (serve()
 * decides, as for any other entry), HARNESS_TOOL_SUPERVISOR=off, and the Go candidate
 * (supervisor-go/, built here): launched by the host in the executable's place (`harness-tool-supervisor
 * node provider.mjs`), and taking the executable's place through HARNESS_TOOL_SUPERVISOR_BINARY
 * (one Node start, then `process.execve`). Also the CPU time the tree spent until the reply (user +
 * system, 10 ms ticks): on a shared machine it says what the wall times blur.
 * Run:
 * `node --import tsx --conditions=harness-tool-source bench/supervisor-cost.ts [runs]`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { bundleCommand } from "../cli/commands/bundle-command.js";
import { repoRoot } from "./bench-workspace.js";
import { processTree, treeCpuMs } from "./kernel-contenders.js";
import { median } from "./measure.js";
import { PluginConnection } from "./plugin-connection.js";

/** RSS, PSS and USS (private pages) of `pid` in KiB, from smaps_rollup. */
function memoryKiB(pid: number): { rss: number; pss: number; uss: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
    return { rss: field("Rss"), pss: field("Pss"), uss: field("Private_Clean") + field("Private_Dirty") };
  } catch {
    return { rss: 0, pss: 0, uss: 0 };
  }
}

/** The lower quartile: what a launch takes when the machine's other load leaves it alone. */
function quartile(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 4)] ?? Number.NaN;
}

const runs = Number(process.argv[2] ?? 20);
const root = path.join(os.tmpdir(), "harness-tool-supervisor-cost");
mkdirSync(root, { recursive: true });
const executable = path.join(root, "executable", "provider.mjs");
mkdirSync(path.dirname(executable), { recursive: true });
const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
await bundleCommand(path.join(repoRoot, "bench/fixtures/bench-provider.ts"), {
  outfile: executable,
  external: [],
  out: silent,
});
// The executable as `harness-tool bundle` wrote it before it decided supervision: the same bundle,
// so serve() decides once the bundle has loaded.
const plainLauncher = path.join(path.dirname(executable), "plain-launcher.mjs");
writeFileSync(plainLauncher, 'process.setSourceMapsEnabled(true);\nawait import("./provider.bundle.mjs");\n');
// The Go candidate, a static build as it would ship.
const goSupervisor = path.join(root, "harness-tool-supervisor");
const goBuild = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", goSupervisor, "."], {
  cwd: path.join(repoRoot, "supervisor-go"),
  encoding: "utf8",
  env: { ...process.env, CGO_ENABLED: "0" },
});
if (goBuild.status !== 0) throw new Error(`go build of supervisor-go failed: ${goBuild.stderr.trim()}`);
const node = process.execPath;
const modes = [
  {
    // The Node supervisor named: the executable would otherwise find the Go program (the default).
    id: "Node supervisor, decided before the bundle loads (harness-tool bundle's executable)",
    env: { HARNESS_TOOL_SUPERVISOR_BINARY: "node" },
    command: node,
    args: [executable],
  },
  {
    id: "Node supervisor, decided in serve() (the same bundle behind the launcher of before)",
    env: { HARNESS_TOOL_SUPERVISOR_BINARY: "node" },
    command: node,
    args: [plainLauncher],
  },
  { id: "off", env: { HARNESS_TOOL_SUPERVISOR: "off" }, command: node, args: [executable] },
  { id: "Go supervisor launched by the host", env: {}, command: goSupervisor, args: [node, executable] },
  {
    id: "Go supervisor through the executable's execve",
    env: { HARNESS_TOOL_SUPERVISOR_BINARY: goSupervisor },
    command: node,
    args: [executable],
  },
] as const;
const samples = new Map<
  string,
  {
    handshake: number[];
    schema: number[];
    cpu: number[];
    rss: number[];
    pss: number[];
    uss: number[];
    processes: number[];
  }
>(modes.map((m) => [m.id, { handshake: [], schema: [], cpu: [], rss: [], pss: [], uss: [], processes: [] }]));
for (let round = 0; round <= runs; round++) {
  // The order rotates round by round, so no mode always follows the same one.
  for (const mode of [...modes.slice(round % modes.length), ...modes.slice(0, round % modes.length)]) {
    const conn = await PluginConnection.launch(mode.command, [...mode.args], { timeoutMs: 15_000, env: mode.env });
    try {
      await conn.getSchema();
      const schemaMs = conn.elapsedMs();
      const cpuMs = treeCpuMs(conn.child.pid as number);
      // Idle: after the first reply, once start-up work has settled.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const pids = processTree(conn.child.pid as number);
      if (round === 0) continue;
      const s = samples.get(mode.id)!;
      s.handshake.push(conn.handshakeMs);
      s.schema.push(schemaMs);
      s.cpu.push(cpuMs);
      const memory = pids.map(memoryKiB);
      s.rss.push(memory.reduce((sum, m) => sum + m.rss, 0) / 1024);
      s.pss.push(memory.reduce((sum, m) => sum + m.pss, 0) / 1024);
      s.uss.push(memory.reduce((sum, m) => sum + m.uss, 0) / 1024);
      s.processes.push(pids.length);
    } finally {
      await conn.close();
    }
  }
}
for (const mode of modes) {
  const s = samples.get(mode.id)!;
  console.log(
    `${mode.id}: spawn → handshake ${median(s.handshake).toFixed(1)} ms, spawn → GetSchema ${median(s.schema).toFixed(1)} ms (lower quartile ${quartile(s.schema).toFixed(1)} ms), CPU to it ${median(s.cpu).toFixed(0)} ms, idle RSS ${median(s.rss).toFixed(1)} MiB, PSS ${median(s.pss).toFixed(1)} MiB, USS ${median(s.uss).toFixed(1)} MiB over ${median(s.processes)} processes (median of ${runs})`,
  );
}
