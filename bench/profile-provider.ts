/**
 * Where a provider's time goes, as the kernel drives it: bundles bench/fixtures/kernel-bench-provider.ts
 * (esbuild, not minified, so every function keeps its file), launches it through the go-plugin
 * v1.8.0 host of bench/kernel-host.ts with `--cpu-prof`, runs one scenario, stops it with Kill()
 * and prints self time by source file (grouped by package) and by function, busy samples only.
 * The evidence behind the per-call and start-up cuts (bench/RESULTS.md's tables). Run:
 * `node --conditions=harness-tool-source --import tsx bench/profile-provider.ts <startup|invoke|stream|kill> [--supervised] [--bare] [--top=N]`
 * (invoke: 20,000 echo calls at concurrency 1; stream: three 200 MB `bash` streams; startup: three
 * launches to the first GetSchema reply; kill: Kill() one second after Configure).
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createWorkspace, removeAllWorkspaces, repoBin, repoRoot } from "./bench-workspace.js";
import { invokeRequest } from "./kernel-contenders.js";
import { buildBenchGo, KernelHost } from "./kernel-host.js";
import { runTimed, sleep } from "./measure.js";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

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
  if (file.startsWith("runtime/")) return `runtime/${file.split("/")[1]}`;
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
    profile.samples.forEach((id, i) => {
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

const [scenario = "invoke", ...flags] = process.argv.slice(2);
if (!["startup", "invoke", "stream", "kill"].includes(scenario))
  throw new Error(`unknown scenario ${scenario} (startup, invoke, stream, kill)`);
const go = buildBenchGo();
if ("skip" in go) throw new Error(go.skip);
const ws = createWorkspace("profile");
try {
  const entry = flags.includes("--bare")
    ? "bench/fixtures/bare-tool-server.ts"
    : "bench/fixtures/kernel-bench-provider.ts";
  const bundle = path.join(ws.root, "provider.mjs");
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
  const profiles = path.join(ws.root, "profiles");
  mkdirSync(profiles);
  const args = ["--cpu-prof", `--cpu-prof-dir=${profiles}`, bundle];
  const env = flags.includes("--supervised") ? {} : { HARNESS_TOOL_SUPERVISOR: "off" };
  const host = new KernelHost(go.host);
  try {
    const launches = scenario === "startup" ? 3 : 1;
    for (let i = 0; i < launches; i++) {
      const launched = await host.launch(`p${i}`, process.execPath, args, env);
      process.stderr.write(`launch ${i}: spawn → GetSchema ${launched.schemaMs.toFixed(1)} ms\n`);
      if (scenario !== "startup") await host.configure(`p${i}`);
      if (scenario === "invoke") {
        const echo = invokeRequest("echo", { text: "hello" }, ws.root);
        await host.load(`p${i}`, echo, 2000, 32);
        const block = await host.load(`p${i}`, echo, 20_000, 1);
        process.stderr.write(`p50 ${block.latenciesMs[Math.floor(block.latenciesMs.length / 2)]?.toFixed(3)} ms\n`);
      } else if (scenario === "stream") {
        for (let s = 0; s < 3; s++) {
          const run = await host.stream(
            `p${i}`,
            invokeRequest("bash", { command: "head -c 200000000 /dev/zero" }, ws.root),
          );
          process.stderr.write(`stream ${s}: ${(200 / (run.ms / 1000)).toFixed(0)} MB/s, ${run.events} events\n`);
        }
      } else if (scenario === "kill") await sleep(1000);
      process.stderr.write(`Kill() → exit ${(await host.kill(`p${i}`)).toFixed(1)} ms\n`);
    }
  } finally {
    await host.close();
  }
  const top = Number(/^--top=(\d+)$/.exec(flags.find((f) => f.startsWith("--top=")) ?? "")?.[1] ?? 25);
  process.stdout.write(`${summarize(profiles, bundle, top)}\n`);
} finally {
  removeAllWorkspaces();
}
