/**
 * The contenders of the kernel-side suites (start-up, Invoke, memory, streams), all launched by the
 * go-plugin v1.8.0 host of bench/kernel-host.ts:
 * - harness-tool: bench/fixtures/kernel-bench-provider.ts bundled by `harness-tool bundle` (the
 *   executable users ship, dist/provider.mjs and the bundle beside it), supervisor on, as the
 *   kernel gets it;
 * - bare: bench/fixtures/bare-tool-server.ts (grpc-js + protobuf-es, nothing else), bundled by the
 *   same command: the Node floor on the same transport stack;
 * - go: bench/go/provider, the same provider in Go on go-plugin v1.8.0.
 * Optional extras (informative): harness-tool with HARNESS_TOOL_SUPERVISOR=off; and, when
 * HARNESS_TOOL_BENCH_BASE names a commit, harness-tool as it was there (before/after rows).
 * Also the /proc readings the suites take of a launched process tree.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { create, toBinary } from "@bufbuild/protobuf";
import { InvokeRequestSchema } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { bundleCommand } from "../cli/commands/bundle-command.js";
import type { BenchWorkspace } from "./bench-workspace.js";
import { repoRoot } from "./bench-workspace.js";
import { buildBenchGo, KernelHost, type Launched } from "./kernel-host.js";
import { median } from "./measure.js";
import type { SuiteContext } from "./suite.js";

/** One process the host launches. */
export interface KernelContender {
  readonly id: "harness-tool" | "bare" | "go" | "harness-tool-unsupervised" | "harness-tool-base" | StackId;
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [name: string]: string };
}

/** The transport contenders, which question the stack: bare servers on other stacks. */
export type StackId = "stack-grpc-tuned" | "stack-connect" | "stack-http2";

/** The contenders of one run, the host, and what could not be built. */
export interface KernelBench {
  readonly host: KernelHost;
  readonly contenders: readonly KernelContender[];
  readonly notes: string[];
}

const silent = new Writable({ write: (_chunk, _encoding, done) => done() });

/** Bundles `entry` (repository-relative) with `harness-tool bundle` into `<dir>/provider.mjs`. */
export async function bundle(ws: BenchWorkspace, entry: string, dir: string): Promise<string> {
  const outfile = path.join(ws.root, dir, "provider.mjs");
  mkdirSync(path.dirname(outfile), { recursive: true });
  await bundleCommand(path.join(repoRoot, entry), { outfile, external: [], out: silent });
  return outfile;
}

/**
 * The runtime, the CLI, generated code and bench fixtures as they were at `commit` (`git archive` into the
 * workspace), with a node_modules of the repository's dependencies in which `harness-tool` is the
 * archived runtime (a link to the whole node_modules would resolve it to this checkout's, as
 * node_modules/harness-tool -> ../runtime). Returns the folder.
 */
export function sourceTreeAtCommit(ws: BenchWorkspace, commit: string): string {
  const dir = path.join(ws.root, `source-${commit}`);
  if (existsSync(dir)) return dir;
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync(
    "sh",
    [
      "-c",
      `git archive --format=tar ${commit} runtime cli generated bench/fixtures package.json tsconfig.json | tar -x -C "${dir}"`,
    ],
    {
      cwd: repoRoot,
      encoding: "utf8",
    },
  );
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.trim()}`);
  mkdirSync(path.join(dir, "node_modules"));
  for (const name of readdirSync(path.join(repoRoot, "node_modules"))) {
    if (name !== "harness-tool")
      symlinkSync(path.join(repoRoot, "node_modules", name), path.join(dir, "node_modules", name));
  }
  symlinkSync(path.join(dir, "runtime"), path.join(dir, "node_modules", "harness-tool"));
  return dir;
}

/** harness-tool as it was at `commit` (HARNESS_TOOL_BENCH_BASE), bundled by this checkout's `harness-tool bundle`: the before/after rows. */
export async function bundleAtCommit(ws: BenchWorkspace, commit: string): Promise<string> {
  const dir = sourceTreeAtCommit(ws, commit);
  const outfile = path.join(ws.root, `kernel-base-${commit}`, "provider.mjs");
  mkdirSync(path.dirname(outfile), { recursive: true });
  await bundleCommand(path.join(dir, "bench/fixtures/kernel-bench-provider.ts"), {
    outfile,
    external: [],
    out: silent,
  });
  return outfile;
}

let shared: Promise<{ contenders: KernelContender[]; hostBinary: string | undefined; notes: string[] }> | undefined;

async function buildAll(
  context: SuiteContext,
): Promise<{ contenders: KernelContender[]; hostBinary: string | undefined; notes: string[] }> {
  const { ws } = await context.packagedWorkspace();
  const notes: string[] = [];
  const contenders: KernelContender[] = [];
  const go = buildBenchGo();
  if ("skip" in go) {
    notes.push(`the Go contender and the go-plugin host are skipped: ${go.skip}`);
    return { contenders, hostBinary: undefined, notes };
  }
  context.log("bundling the kernel-side contenders (harness-tool bundle)");
  const ours = await bundle(ws, "bench/fixtures/kernel-bench-provider.ts", "kernel-harness-tool");
  const bare = await bundle(ws, "bench/fixtures/bare-tool-server.ts", "kernel-bare");
  const connect = await bundle(ws, "bench/fixtures/connect-tool-server.ts", "kernel-connect");
  const http2 = await bundle(ws, "bench/fixtures/http2-tool-server.ts", "kernel-http2");
  contenders.push(
    { id: "harness-tool", label: "harness-tool", command: process.execPath, args: [ours], env: {} },
    { id: "bare", label: "bare grpc-js", command: process.execPath, args: [bare], env: {} },
    { id: "go", label: "Go (go-plugin)", command: go.provider, args: [], env: {} },
    {
      id: "harness-tool-unsupervised",
      label: "harness-tool, supervisor off",
      command: process.execPath,
      args: [ours],
      env: { HARNESS_TOOL_SUPERVISOR: "off" },
    },
    {
      id: "stack-grpc-tuned",
      label: "bare grpc-js, channelz off",
      command: process.execPath,
      args: [bare],
      env: { BARE_GRPC_TUNED: "1" },
    },
    {
      id: "stack-connect",
      label: "bare connect-node (gRPC on node:http2)",
      command: process.execPath,
      args: [connect],
      env: {},
    },
    {
      id: "stack-http2",
      label: "bare node:http2, gRPC framing by hand",
      command: process.execPath,
      args: [http2],
      env: {},
    },
  );
  const base = process.env["HARNESS_TOOL_BENCH_BASE"];
  if (base) {
    // Asked for, so a base that does not bundle fails the suites (the error says why).
    const file = await bundleAtCommit(ws, base);
    contenders.push({
      id: "harness-tool-base",
      label: `harness-tool at ${base}`,
      command: process.execPath,
      args: [file],
      env: {},
    });
  }
  return { contenders, hostBinary: go.host, notes };
}

/**
 * Builds (once per run) and returns the host and the contenders: the core three, the base commit's
 * harness-tool when asked, the transport contenders in full runs (not --quick), and harness-tool
 * with the supervisor off when `extras`. A skip: the suite cannot run here.
 */
export async function kernelBench(
  context: SuiteContext,
  extras: boolean,
): Promise<KernelBench | { readonly skip: string }> {
  shared ??= buildAll(context);
  const { contenders, hostBinary, notes } = await shared;
  if (hostBinary === undefined) return { skip: notes.join("; ") };
  const chosen = contenders.filter(
    (c) => (c.id !== "harness-tool-unsupervised" || extras) && (!c.id.startsWith("stack-") || !context.quick),
  );
  // The base commit's harness-tool (HARNESS_TOOL_BENCH_BASE) runs in every suite: before/after rows.
  return { host: new KernelHost(hostBinary), contenders: chosen, notes: [...notes] };
}

/** Launches a contender under `id`: handshake, GetSchema, and Configure when asked. */
export async function launchContender(
  host: KernelHost,
  c: KernelContender,
  id: string,
  configure: boolean,
): Promise<Launched> {
  const launched = await host.launch(id, c.command, c.args, c.env);
  if (configure) await host.configure(id);
  return launched;
}

/** The encoded InvokeRequest of `toolName` with `args`, as the kernel sends it. */
export function invokeRequest(
  toolName: string,
  args: { readonly [key: string]: string },
  workingDirectory: string,
): Uint8Array {
  return toBinary(
    InvokeRequestSchema,
    create(InvokeRequestSchema, {
      call: {
        id: `bench-${toolName}`,
        toolName,
        arguments: args,
        callContext: { sessionId: "bench", turnId: "1", workingDirectory },
      },
    }),
  );
}

/** Every pid of the tree under `pid` (itself first). */
export function processTree(pid: number): number[] {
  const out = [pid];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      for (const child of children === "" ? [] : children.split(" ")) out.push(...processTree(Number(child)));
    }
  } catch {
    // Gone.
  }
  return out;
}

function status(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return "";
  }
}

function statusKb(text: string, key: string): number {
  return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
}

/** VmRSS of one process, KiB (0 when gone). */
export function rssKb(pid: number): number {
  return statusKb(status(pid), "VmRSS");
}

/** VmHWM (peak RSS since start) of one process, KiB. */
export function peakRssKb(pid: number): number {
  return statusKb(status(pid), "VmHWM");
}

/**
 * CPU time of the tree under `pid`, ms, from each thread's schedstat (nanoseconds on the CPU):
 * /proc/<pid>/stat's 10 ms ticks are too coarse for blocks of a few hundred ms on a loaded machine.
 * Threads that exited between two readings are not counted (none do while calls run).
 */
export function treeCpuPreciseMs(pid: number): number {
  let ns = 0;
  for (const p of processTree(pid)) {
    try {
      for (const task of readdirSync(`/proc/${p}/task`))
        ns += Number(readFileSync(`/proc/${p}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // Gone.
    }
  }
  return ns / 1e6;
}

/**
 * One block of `level.calls` Invokes of `request` on the host's provider `instance` (process tree
 * `pid`), `level.concurrency` in flight: the tree's CPU per call (schedstat, ms) and the block's p50.
 * A failed call fails the bench.
 */
export async function loadBlock(
  host: KernelHost,
  instance: string,
  pid: number,
  request: Uint8Array,
  level: { readonly calls: number; readonly concurrency: number },
): Promise<{ cpuPerCallMs: number; p50Ms: number }> {
  const before = treeCpuPreciseMs(pid);
  const block = await host.load(instance, request, level.calls, level.concurrency);
  if (block.failures > 0) throw new Error(`${instance}: ${block.failures} failed calls, first: ${block.firstFailure}`);
  return { cpuPerCallMs: (treeCpuPreciseMs(pid) - before) / level.calls, p50Ms: median(block.latenciesMs) };
}

/** VmRSS summed over the tree under `pid`, KiB. */
export function treeRssKb(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + rssKb(p), 0);
}

/** CPU time (user + system, 10 ms ticks) of the tree under `pid`, children that exited and were reaped included, ms. */
export function treeCpuMs(pid: number): number {
  let total = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
    } catch {
      // Gone.
    }
  }
  return total;
}

/**
 * The process that serves under a launched pid: the supervised provider (its child started with
 * HARNESS_TOOL_SUPERVISED=<pid>), or the pid itself.
 */
export { servingPid } from "../test/support/serving-process.js";
