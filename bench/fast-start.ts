/**
 * The fast start of a bundled provider per Node line, as the kernel pays it: the kernel bench
 * provider (bench/fixtures/kernel-bench-provider.ts) bundled by this checkout's `harness-tool
 * bundle`, launched by the go-plugin v1.8.0 host (bench/go/host) with the supervisor on, spawn →
 * first GetSchema reply, under each node given, with V8's module compile cache off
 * (NODE_DISABLE_COMPILE_CACHE=1), cold (an empty cache directory per launch: the first start on a
 * machine, which also writes the cache) and warm (one directory filled by the uncounted warm-up
 * round); beside it that node's own floor, `node -e 0` spawn → exit. Interleaved rounds, the order
 * rotating; medians, and the median over rounds of each launch's ratio to the same round's
 * cache-off launch on the same node (paired). With --release, also `harness-tool release`'s outputs:
 * the single-file .mjs on each node in the same three modes, and the single executable without and
 * with V8's code cache (--code-cache). bench/RESULTS.md ("Fast start") holds the figures.
 * With --standin=<binary> also, per node, the warm bundle with the supervisor off and under a Go
 * stand-in for the supervisor (bench/go/standin). Each line also gives the launched tree's VmRSS at
 * the first GetSchema reply. With --supervisors, per node, the warm bundle under each supervisor: the
 * Node supervisor (HARNESS_TOOL_SUPERVISOR_BINARY=node), the Go program through Node's execve
 * (`node provider.mjs`), the Go program started by the executable's sh line (the host launches
 * provider.mjs itself; its `node` is the first on this process's PATH, which go-plugin passes on,
 * so give one --node, that one), and none (HARNESS_TOOL_SUPERVISOR=off); the bundle carries the Go
 * program (supervisor-go built and installed as this platform's package first).
 * With --release and --supervisor-binary=<file> (supervisor-go/, built
 * for this machine), also the single executable carrying that Go supervisor, and the plain one with
 * the supervisor off, both paired with the plain one (the Node supervisor).
 * Run: `node --conditions=harness-tool-source --import tsx bench/fast-start.ts --node=<node>... [--runs=15] [--release [--supervisor-binary=<file>]] [--standin=<binary>] [--supervisors] [--unsupervised]`
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { bundleCommand } from "../cli/commands/bundle-command.js";
import { embeddedNodeVersion, hostPlatformKey } from "../cli/release/release-platforms.js";
import { createWorkspace, removeAllWorkspaces, repoRoot } from "./bench-workspace.js";
import { treeRssKb } from "./kernel-contenders.js";
import { buildBenchGo, KernelHost } from "./kernel-host.js";
import { bareNodeMs, median, roundRobinOrder } from "./measure.js";
import { cli } from "./release.js";
import { installSupervisorPackage } from "../test/support/supervisor-package.mjs";

const args = process.argv.slice(2);
const nodes = args.filter((a) => a.startsWith("--node=")).map((a) => a.slice("--node=".length));
const runs = Number(/^--runs=(\d+)$/.exec(args.find((a) => a.startsWith("--runs=")) ?? "")?.[1] ?? 15);
const supervision = args.includes("--unsupervised") ? { HARNESS_TOOL_SUPERVISOR: "off" } : {};
if (nodes.length === 0) throw new Error("name at least one node binary: --node=/path/to/node");
const standin = args.find((a) => a.startsWith("--standin="))?.slice("--standin=".length);
const supervisorBinary = args.find((a) => a.startsWith("--supervisor-binary="))?.slice("--supervisor-binary=".length);

type CacheMode = "off" | "cold" | "warm";
const modes: readonly CacheMode[] = ["off", "cold", "warm"];

interface Contender {
  readonly id: string;
  /** The command the host launches: a node with `args`, or a single executable. */
  readonly node: string;
  readonly args: readonly string[];
  /** The node's version; the off contender of the same version is its pair. */
  readonly version: string;
  readonly mode: CacheMode | "node -e 0";
  /** More of the environment (the supervisor off). */
  readonly env?: Record<string, string>;
}

/**
 * --standin=<binary> (bench/go/standin, built with `go build`): per node, the warm bundle with the
 * supervisor off, and the same under the Go stand-in for the supervisor.
 */
function standinContenders(standin: string, node: string, version: string, provider: string): Contender[] {
  const off = { HARNESS_TOOL_SUPERVISOR: "off" };
  return [
    { id: `${version} warm, supervisor off`, node, args: [provider], version, mode: "warm", env: off },
    { id: `${version} warm, Go stand-in`, node: standin, args: [node, provider], version, mode: "warm", env: off },
  ];
}

/**
 * --supervisors: per node, the warm bundle under the Node supervisor, the Go program through execve
 * and through the executable's sh line, and none.
 */
function supervisorContenders(node: string, version: string, provider: string): Contender[] {
  const onPath = spawnSync("node", ["-v"], { encoding: "utf8" }).stdout.trim();
  if (onPath !== version) throw new Error(`--supervisors: the node on PATH is ${onPath}, not ${version}: put it first`);
  const warm = (id: string, command: string, args: string[], env: Record<string, string>): Contender => ({
    id: `${version} warm, ${id}`,
    node: command,
    args,
    version,
    mode: "warm",
    env,
  });
  return [
    warm("Node supervisor", node, [provider], { HARNESS_TOOL_SUPERVISOR_BINARY: "node" }),
    warm("Go via execve", node, [provider], {}),
    warm("Go via sh", provider, [], {}),
    warm("no supervisor", node, [provider], { HARNESS_TOOL_SUPERVISOR: "off" }),
  ];
}

const go = buildBenchGo();
if ("skip" in go) throw new Error(go.skip);
const ws = createWorkspace("fast-start");
const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The environment of one launch: the cache off, a fresh directory, or the contender's warm one. */
function cacheEnv(c: Contender): Record<string, string> {
  if (c.mode === "off") return { NODE_DISABLE_COMPILE_CACHE: "1" };
  if (c.mode === "cold") return { NODE_COMPILE_CACHE: mkdtempSync(path.join(ws.root, "cold-")) };
  return { NODE_COMPILE_CACHE: path.join(ws.root, `warm-${c.id}`) };
}

/**
 * `harness-tool release` of the same provider for this machine, as is and with --code-cache: the
 * single-file .mjs on each node (cache off, cold, warm) and the two single executables (Node
 * ${embeddedNodeVersion} inside; their "off" is the executable without a code cache).
 */
async function releaseContenders(nodesGiven: readonly string[]): Promise<Contender[]> {
  const host = hostPlatformKey();
  if (host === undefined) throw new Error(`no release platform for ${process.platform} ${process.arch}`);
  const entry = path.join(repoRoot, "bench/fixtures/kernel-bench-provider.ts");
  const plain = path.join(ws.root, "release");
  const cached = path.join(ws.root, "release-code-cache");
  await cli(["release", entry, "--platform", host, "--out-dir", plain]);
  await cli(["release", entry, "--platform", host, "--code-cache", "--out-dir", cached]);
  const executable = readdirSync(plain).find((f) => f.endsWith(`_${host}`));
  const moduleFile = readdirSync(plain).find((f) => f.endsWith(".mjs"));
  if (executable === undefined || moduleFile === undefined) throw new Error(`release wrote ${readdirSync(plain)}`);
  const sea = `sea ${embeddedNodeVersion}`;
  return [
    { id: `${sea} off`, node: path.join(plain, executable), args: [], version: sea, mode: "off" },
    { id: `${sea} code cache`, node: path.join(cached, executable), args: [], version: sea, mode: "off" },
    ...(supervisorBinary ? await goSupervisedContenders(entry, host, path.join(plain, executable), sea) : []),
    ...nodesGiven.flatMap((node) => {
      const version = `.mjs ${spawnSync(node, ["-v"], { encoding: "utf8" }).stdout.trim()}`;
      return modes.map((mode) => ({
        id: `${version} ${mode}`,
        node,
        args: [path.join(plain, moduleFile)],
        version,
        mode,
      }));
    }),
  ];
}

/**
 * --supervisor-binary: the single executable carrying the Go supervisor (it unpacks it on the
 * uncounted first launch), and the plain one with the supervisor off; their sizes on stderr.
 */
async function goSupervisedContenders(entry: string, host: string, plain: string, sea: string): Promise<Contender[]> {
  const out = path.join(ws.root, "release-go-supervisor");
  await cli([
    "release",
    entry,
    "--platform",
    host,
    "--supervisor-binary",
    `${host}=${supervisorBinary}`,
    "--out-dir",
    out,
  ]);
  const carrying = path.join(out, path.basename(plain));
  log(
    `executable: ${statSync(plain).size} B with the Node supervisor, ${statSync(carrying).size} B carrying the Go one`,
  );
  const files = { HARNESS_TOOL_PROVIDER_FILES: path.join(ws.root, "provider-files") };
  return [
    { id: `${sea} Go supervisor`, node: carrying, args: [], version: sea, mode: "off", env: files },
    {
      id: `${sea} supervisor off`,
      node: plain,
      args: [],
      version: sea,
      mode: "off",
      env: { HARNESS_TOOL_SUPERVISOR: "off" },
    },
  ];
}

try {
  const provider = path.join(ws.root, "provider.mjs");
  mkdirSync(ws.root, { recursive: true });
  if (args.includes("--supervisors")) {
    const installed = installSupervisorPackage();
    if (installed.binary === undefined) throw new Error(`--supervisors needs the Go program: ${installed.reason}`);
  }
  await bundleCommand(path.join(repoRoot, "bench/fixtures/kernel-bench-provider.ts"), {
    outfile: provider,
    external: [],
    out: silent,
  });
  const contenders: Contender[] = nodes.flatMap((node) => {
    const version = spawnSync(node, ["-v"], { encoding: "utf8" }).stdout.trim();
    return [
      { id: `${version} node -e 0`, node, args: [], version, mode: "node -e 0" as const },
      ...modes.map((mode) => ({ id: `${version} ${mode}`, node, args: [provider], version, mode })),
      ...(standin ? standinContenders(standin, node, version, provider) : []),
      ...(args.includes("--supervisors") ? supervisorContenders(node, version, provider) : []),
    ];
  });
  if (args.includes("--release")) contenders.push(...(await releaseContenders(nodes)));
  const samples = new Map<string, number[]>();
  /** VmRSS of the launched process tree at the first GetSchema reply, KiB. */
  const rss = new Map<string, number[]>();
  const host = new KernelHost(go.host);
  try {
    // Round 0 warms the page cache and the warm contenders' caches; it is not counted.
    for (let round = 0; round <= runs; round++) {
      log(`round ${round}/${runs}${round === 0 ? " (warm-up)" : ""}`);
      for (const c of roundRobinOrder(contenders, round)) {
        let ms: number;
        if (c.mode === "node -e 0") ms = bareNodeMs(c.node);
        else {
          const id = `${c.id}-${round}`;
          const launched = await host.launch(id, c.node, c.args, { ...supervision, ...cacheEnv(c), ...c.env });
          if (round > 0) rss.set(c.id, [...(rss.get(c.id) ?? []), treeRssKb(launched.pid)]);
          await host.kill(id);
          ms = launched.schemaMs;
        }
        if (round > 0) samples.set(c.id, [...(samples.get(c.id) ?? []), ms]);
      }
    }
  } finally {
    await host.close();
  }
  const warmFiles = (c: Contender) => {
    try {
      return readdirSync(path.join(ws.root, `warm-${c.id}`), { recursive: true }).length;
    } catch {
      return 0;
    }
  };
  process.stdout.write(
    `fast start, spawn → GetSchema reply through go-plugin (${Object.keys(supervision).length > 0 ? "supervisor off" : "supervisor on"}), median of ${runs}:\n`,
  );
  for (const c of contenders) {
    const values = samples.get(c.id) ?? [];
    const off = median(samples.get(`${c.version} off`) ?? []);
    // The floor of the node that runs it: the .mjs's node, the executable's embedded one.
    const floorOf = c.version.replace(/^\.mjs /, "").replace(/^sea /, "v");
    const floor = median(samples.get(`${floorOf} node -e 0`) ?? []);
    const m = median(values);
    // Paired: each round's value over the same round's cache-off launch, then the median of those.
    const off0 = samples.get(`${c.version} off`) ?? [];
    const paired = median(values.map((v, i) => v / (off0[i] ?? Number.NaN)));
    const tree = rss.has(c.id) ? `; tree RSS ${(median(rss.get(c.id) ?? []) / 1024).toFixed(1)} MB` : "";
    // --supervisors: each round's value over the same round's warm launch under the Node supervisor.
    const nodeSupervised = samples.get(`${c.version} warm, Node supervisor`);
    const vsNode = nodeSupervised
      ? `; paired ${median(values.map((v, i) => v / (nodeSupervised[i] ?? Number.NaN))).toFixed(2)}× Node supervisor`
      : "";
    const extra = `${c.mode === "warm" ? `, ${warmFiles(c)} cache entries` : ""}; paired ${paired.toFixed(2)}× off${vsNode}${tree}`;
    process.stdout.write(
      `${c.id.padEnd(24)} ${m.toFixed(1).padStart(7)} ms  ${(m / off).toFixed(2)}× off  ${(m / floor).toFixed(2)}× node -e 0  (p25 ${[...values].sort((a, b) => a - b)[Math.floor(values.length / 4)]?.toFixed(1)} ms${extra})\n`,
    );
  }
} finally {
  removeAllWorkspaces();
}
