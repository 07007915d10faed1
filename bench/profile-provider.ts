/**
 * Where a provider's time goes, as the kernel drives it: bundles bench/fixtures/kernel-bench-provider.ts
 * (esbuild, not minified, so every function keeps its file), launches it through the go-plugin
 * v1.8.0 host of bench/kernel-host.ts with `--cpu-prof`, runs one scenario, stops it with Kill()
 * and prints self time by source file (grouped by package) and by function, busy samples only.
 * The evidence behind the per-call and start-up cuts (bench/RESULTS.md's tables). Run:
 * `node --conditions=harness-tool-source --import tsx bench/profile-provider.ts <startup|invoke|stream|kill|idle> [--supervised] [--bare|--http2] [--shipped] [--no-deadline] [--top=N] [--calls=N] [--concurrency=N] [--env=K=V]`
 * (invoke: 20,000 echo calls at concurrency 1 unless told, only the samples taken during that block
 * counted; stream: three 200 MB `bash` streams; startup: three launches to the first GetSchema
 * reply; kill: Kill() one second after Configure; idle: no profile, the launched process's memory
 * split 2 s after Configure, and the Go supervisor's when `--supervised`; `--env=PROFILE_HEAP_SNAPSHOT=<file>`
 * writes a heap snapshot there too; `--no-deadline`: the Invokes carry no deadline). `--http2` profiles
 * bench/fixtures/http2-tool-server.ts, the bare node:http2 floor; `--shipped` runs `harness-tool bundle`'s
 * output (minified: the profile's functions lose their files) instead of the plain esbuild bundle.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createWorkspace, removeAllWorkspaces, repoBin, repoRoot } from "./bench-workspace.js";
import { invokeRequest, processTree, bundle as shippedBundle } from "./kernel-contenders.js";
import { buildBenchGo, buildSupervisorGo, KernelHost } from "./kernel-host.js";
import { runTimed, sleep } from "./measure.js";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The profiled block, µs of the monotonic clock V8's sample times use; samples outside it are left out. */
let window: { start: number; end: number } | undefined;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** The source file of each line of an esbuild bundle, from the `// path` comments it writes. */
function lineOwners(bundle: string): string[] {
  const owners: string[] = [];
  let current = "(esbuild runtime)";
  for (const [i, line] of readFileSync(bundle, "utf8").split("\n").entries()) {
    const m = /^\/\/ (\S+\.(?:ts|js|mjs|cjs))$/.exec(line);
    if (m) current = m[1] as string;
    owners[i] = current;
  }
  return owners;
}

function ownerGroup(file: string): string {
  for (const pkg of ["@bufbuild/protobuf", "@grpc/grpc-js", "@opentelemetry"]) if (file.includes(pkg)) return pkg;
  return file;
}

/** Self time (ms per profile) by package/file and by function, highest first. */
function summarize(dir: string, bundle: string, top: number): string {
  const owners = lineOwners(bundle);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  for (const file of files) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i] ?? 0;
      if (window && (at < window.start || at > window.end)) return;
      const frame = (nodes.get(id) as ProfileNode).callFrame;
      if (frame.functionName === "(idle)") return;
      const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
      const inBundle = frame.url.endsWith(path.basename(bundle));
      const owner = inBundle
        ? ownerGroup(owners[frame.lineNumber] ?? "?")
        : frame.url === ""
          ? frame.functionName
          : `node:${frame.url.replace(/^node:/, "").split("/")[0]}`;
      const where = inBundle ? (owners[frame.lineNumber] ?? "?") : frame.url.replace(/^node:/, "");
      byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
      const fn = `${frame.functionName || "(anonymous)"} ${where}`;
      byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
      busy += ms;
    });
  }
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([k, v]) =>
          `  ${(v / files.length).toFixed(1).padStart(8)} ms ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`,
      );
  return [
    `busy ${(busy / files.length).toFixed(1)} ms per profile (${files.length} profiles)`,
    "by package / file:",
    ...rows(byOwner),
    "by function:",
    ...rows(byFunction),
  ].join("\n");
}

/** A preload for the idle scenario: the process's memory split, written 2 s after `PROFILE_CONFIGURED` appears. */
const memoryProbe = `
const fs = require("node:fs"), v8 = require("node:v8"), vm = require("node:vm");
const out = process.env.PROFILE_MEMORY_OUT, flag = process.env.PROFILE_CONFIGURED;
const sample = () => ({
  usage: process.memoryUsage(),
  heap: v8.getHeapStatistics(),
  spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_used_size, s.space_size, s.physical_space_size]])),
  rollup: fs.readFileSync("/proc/self/smaps_rollup", "utf8"),
});
const timer = setInterval(() => {
  if (!fs.existsSync(flag)) return;
  clearInterval(timer);
  setTimeout(() => {
    const idle = sample();
    if (process.env.PROFILE_HEAP_SNAPSHOT) v8.writeHeapSnapshot(process.env.PROFILE_HEAP_SNAPSHOT);
    v8.setFlagsFromString("--expose-gc");
    vm.runInNewContext("gc")();
    fs.writeFileSync(out, JSON.stringify({ idle, collected: sample() }));
  }, 2000).unref();
}, 50);
timer.unref();
`;

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

interface MemorySample {
  usage: NodeJS.MemoryUsage;
  heap: { malloced_memory: number; total_physical_size: number };
  spaces: Record<string, [number, number, number]>;
  rollup: string;
}

const rollupLine = (text: string) =>
  text
    .split("\n")
    .filter((l) => /^(Rss|Anonymous|Pss_File):/.test(l))
    .map((l) => l.replace(/\s+/g, " "))
    .join(", ");

function memoryLines(label: string, m: MemorySample): string[] {
  const spaces = Object.entries(m.spaces)
    .filter(([, [, size]]) => size > 0)
    .map(([k, [used, size, physical]]) => `${k} ${mb(used)}/${mb(size)}/${mb(physical)}`);
  return [
    `${label}: rss ${mb(m.usage.rss)}; heap used ${mb(m.usage.heapUsed)} of ${mb(m.usage.heapTotal)} (physical ${mb(m.heap.total_physical_size)}); external ${mb(m.usage.external)}; arrayBuffers ${mb(m.usage.arrayBuffers)}; malloced ${mb(m.heap.malloced_memory)}`,
    `  spaces used/size/physical: ${spaces.join(", ")}`,
    `  smaps_rollup: ${rollupLine(m.rollup)}`,
  ];
}

/** The idle scenario's report: the launched process's memory split (at idle, then after a full GC) and the Go supervisor's. */
function memoryReport(file: string, supervisorPid: number | undefined): string {
  const m = JSON.parse(readFileSync(file, "utf8")) as { idle: MemorySample; collected: MemorySample };
  const lines = [...memoryLines("idle", m.idle), ...memoryLines("after gc()", m.collected)];
  if (supervisorPid !== undefined)
    for (const pid of processTree(supervisorPid)) {
      const name = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      lines.push(`pid ${pid} ${name}: ${rollupLine(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))}`);
    }
  return lines.join("\n");
}

const [scenario = "invoke", ...flags] = process.argv.slice(2);
if (!["startup", "invoke", "stream", "kill", "idle"].includes(scenario))
  throw new Error(`unknown scenario ${scenario} (startup, invoke, stream, kill, idle)`);
const numberFlag = (name: string, fallback: number) =>
  Number(new RegExp(`^--${name}=(\\d+)$`).exec(flags.find((f) => f.startsWith(`--${name}=`)) ?? "")?.[1] ?? fallback);
const go = buildBenchGo();
if ("skip" in go) throw new Error(go.skip);
const ws = createWorkspace("profile");
try {
  const entry = flags.includes("--bare")
    ? "bench/fixtures/bare-tool-server.ts"
    : flags.includes("--http2")
      ? "bench/fixtures/http2-tool-server.ts"
      : "bench/fixtures/kernel-bench-provider.ts";
  const shipped = flags.includes("--shipped");
  const bundle = shipped ? await shippedBundle(ws, entry, "shipped") : path.join(ws.root, "provider.mjs");
  if (!shipped) {
    const built = await runTimed(
      path.join(repoBin, "esbuild"),
      [
        path.join(repoRoot, entry),
        "--bundle",
        "--platform=node",
        "--format=esm",
        "--target=node22",
        `--outfile=${bundle}`,
        "--banner:js=import { createRequire as __profileRequire } from 'node:module'; const require = __profileRequire(import.meta.url);",
        "--conditions=harness-tool-source",
        "--log-level=error",
      ],
      { cwd: repoRoot, timeoutMs: 60_000, measureRss: false },
    );
    if (built.status !== 0) throw new Error(`esbuild failed: ${built.stderr}`);
  }
  const profiles = path.join(ws.root, "profiles");
  mkdirSync(profiles);
  const probe = path.join(ws.root, "memory-probe.cjs");
  writeFileSync(probe, memoryProbe);
  const args =
    scenario === "idle"
      ? ["--require", probe, bundle]
      : ["--cpu-prof", "--cpu-prof-interval=100", `--cpu-prof-dir=${profiles}`, bundle];
  const env: Record<string, string> = flags.includes("--supervised") ? {} : { HARNESS_TOOL_SUPERVISOR: "off" };
  if (flags.includes("--supervised")) {
    const sup = buildSupervisorGo();
    if ("skip" in sup) throw new Error(sup.skip);
    env.HARNESS_TOOL_SUPERVISOR_BINARY = sup.binary;
  }
  for (const f of flags.filter((f) => f.startsWith("--env="))) {
    const [k = "", ...v] = f.slice(6).split("=");
    env[k] = v.join("=");
  }
  const memoryOut = path.join(ws.root, "memory.json");
  const configured = path.join(ws.root, "configured");
  Object.assign(env, { PROFILE_MEMORY_OUT: memoryOut, PROFILE_CONFIGURED: configured });
  const host = new KernelHost(go.host);
  try {
    const launches = scenario === "startup" ? 3 : 1;
    for (let i = 0; i < launches; i++) {
      const launched = await host.launch(`p${i}`, process.execPath, args, env, flags.includes("--no-deadline"));
      process.stderr.write(`launch ${i}: spawn → GetSchema ${launched.schemaMs.toFixed(1)} ms\n`);
      if (scenario !== "startup") await host.configure(`p${i}`);
      if (scenario === "invoke") {
        const echo = invokeRequest("echo", { text: "hello" }, ws.root);
        await host.load(`p${i}`, echo, 2000, 32);
        const [calls, concurrency] = [numberFlag("calls", 20_000), numberFlag("concurrency", 1)];
        const start = nowUs();
        const block = await host.load(`p${i}`, echo, calls, concurrency);
        window = { start, end: nowUs() };
        process.stderr.write(
          `${calls} calls at c=${concurrency}: wall ${block.wallMs.toFixed(0)} ms, p50 ${block.latenciesMs[Math.floor(block.latenciesMs.length / 2)]?.toFixed(3)} ms, failures ${block.failures}\n`,
        );
      } else if (scenario === "stream") {
        for (let s = 0; s < 3; s++) {
          const run = await host.stream(
            `p${i}`,
            invokeRequest("bash", { command: "head -c 200000000 /dev/zero" }, ws.root),
          );
          process.stderr.write(`stream ${s}: ${(200 / (run.ms / 1000)).toFixed(0)} MB/s, ${run.events} events\n`);
        }
      } else if (scenario === "kill") await sleep(1000);
      else if (scenario === "idle") {
        writeFileSync(configured, "");
        for (let t = 0; t < 100 && !existsSync(memoryOut); t++) await sleep(100);
        if (!existsSync(memoryOut)) throw new Error("the memory probe wrote nothing in 10 s (is --require honoured?)");
        process.stdout.write(`${memoryReport(memoryOut, flags.includes("--supervised") ? launched.pid : undefined)}\n`);
      }
      process.stderr.write(`Kill() → exit ${(await host.kill(`p${i}`)).toFixed(1)} ms\n`);
    }
  } finally {
    await host.close();
  }
  if (scenario !== "idle") process.stdout.write(`${summarize(profiles, bundle, numberFlag("top", 25))}\n`);
} finally {
  removeAllWorkspaces();
}
