/**
 * Suite 7, tracing cost: the bench provider (bench/fixtures/bench-provider.ts, bundled) as it was
 * before the runtime traced anything (the sources of `baseCommit`, bundled the same way), as it is
 * now with telemetry off (no OTEL_* variables: the API only), and with export on (the SDK and the
 * OTLP/protobuf exporter loaded, sending to a receiver in this process). Spawn → GetSchema reply
 * over round-robin launches; Invoke p50 of the trivial tool at concurrency 1 and 32, contenders
 * alternating block by block. Every call carries a traceparent, as the kernel's do.
 */
import { existsSync, symlinkSync } from "node:fs";
import path from "node:path";
import { startOtlpReceiver, type OtlpReceiver } from "../runtime/telemetry/otlp-receiver.js";
import { repoBin, repoRoot, type BenchWorkspace } from "./bench-workspace.js";
import { echoLoad } from "./call-load.js";
import { sourceTreeAtCommit } from "./kernel-contenders.js";
import { median, percentile, roundRobinOrder, runTimed } from "./measure.js";
import { PluginConnection } from "./plugin-connection.js";
import { bundleProvider, type BuiltEntry } from "./provider-builds.js";
import { compared, formatMs, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/**
 * The runtime before tracing (the base tracing was built on): what "telemetry off must stay within
 * noise of today" is measured against. HARNESS_TOOL_BENCH_TELEMETRY_BASE names another commit.
 */
const baseCommit = process.env.HARNESS_TOOL_BENCH_TELEMETRY_BASE ?? "9f3799f";

/** The kernel's traceparent for every call (a sampled remote parent). */
const kernelTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

const requireBanner =
  "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);";

/**
 * The bench provider of `commit`, bundled from that commit's sources (git archive into the
 * workspace, this checkout's node_modules beside them).
 */
async function bundleAtCommit(ws: BenchWorkspace, commit: string): Promise<BuiltEntry> {
  let dir: string;
  try {
    dir = sourceTreeAtCommit(ws, commit);
  } catch (error) {
    return { ok: false, why: error instanceof Error ? error.message : String(error) };
  }
  const outfile = path.join(ws.root, `bench-provider-${commit}.bundle.mjs`);
  const run = await runTimed(
    path.join(repoBin, "esbuild"),
    [
      path.join(dir, "bench/fixtures/bench-provider.ts"),
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--target=node22",
      `--outfile=${outfile}`,
      `--banner:js=${requireBanner}`,
      "--log-level=error",
      "--conditions=harness-tool-source",
    ],
    { cwd: dir, timeoutMs: 60_000, measureRss: false },
  );
  return run.status === 0
    ? { ok: true, file: outfile }
    : { ok: false, why: `esbuild at ${commit} failed: ${run.stderr.trim().slice(0, 500)}` };
}

interface Contender {
  readonly id: "base" | "off" | "on";
  readonly label: string;
  readonly file: string;
  readonly env: NodeJS.ProcessEnv;
}

async function launch(c: Contender): Promise<PluginConnection> {
  const conn = await PluginConnection.launch(process.execPath, [c.file], { timeoutMs: 15_000, env: c.env });
  conn.traceparent = kernelTraceparent;
  return conn;
}

/** The telemetry suite. */
export const telemetrySuite: Suite = {
  id: "telemetry",
  title: "7. Tracing cost (telemetry off vs the runtime before tracing; export on)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const launches = context.runs ?? (context.quick ? 3 : 20);
    const rounds = context.quick ? 1 : 5;
    const callsAt1 = context.quick ? 200 : 2000;
    const callsAt32 = context.quick ? 1000 : 10_000;
    const notes: string[] = [];
    const failures: string[] = [];
    const figures: Figure[] = [];
    const { ws } = await context.packagedWorkspace();
    // The bundles import the SDK at run time, from node_modules beside them (as in a provider repo).
    if (!existsSync(path.join(ws.root, "node_modules")))
      symlinkSync(path.join(repoRoot, "node_modules"), path.join(ws.root, "node_modules"));
    const [base, current] = await Promise.all([bundleAtCommit(ws, baseCommit), bundleProvider(ws)]);
    if (!current.ok)
      return {
        id: this.id,
        title: this.title,
        method: [],
        figures: [failedFigure("tracing cost", current.why)],
        notes,
      };
    if (!base.ok) failures.push(`no baseline: ${base.why}`);
    const receiver: OtlpReceiver = await startOtlpReceiver();
    const contenders: Contender[] = [
      ...(base.ok ? [{ id: "base" as const, label: `before tracing (${baseCommit})`, file: base.file, env: {} }] : []),
      { id: "off", label: "telemetry off", file: current.file, env: {} },
      {
        id: "on",
        label: "export on (OTLP/protobuf)",
        file: current.file,
        env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesEndpoint, OTEL_TRACES_EXPORTER: "otlp" },
      },
    ];
    try {
      // Start-up: spawn → first GetSchema reply; round 0 warms the page cache.
      const startup = new Map<string, number[]>(contenders.map((c) => [c.id, []]));
      for (let round = 0; round <= launches; round++) {
        context.log(`telemetry start-up round ${round}/${launches}`);
        for (const c of roundRobinOrder(contenders, round)) {
          const conn = await launch(c);
          try {
            await conn.getSchema();
            if (round > 0) startup.get(c.id)?.push(conn.elapsedMs());
          } finally {
            await conn.close();
          }
        }
      }
      // Invoke: one process per contender, Configure'd, warmed up, then blocks round-robin.
      const conns = new Map<string, PluginConnection>();
      for (const c of contenders) {
        const conn = await launch(c);
        await conn.getSchema();
        await conn.configure();
        await echoLoad(conn, context.quick ? 200 : 1000, 32);
        conns.set(c.id, conn);
      }
      const latencies = new Map<string, { c1: number[]; c32: number[]; failures: number }>(
        contenders.map((c) => [c.id, { c1: [], c32: [], failures: 0 }]),
      );
      try {
        for (let round = 0; round < rounds; round++) {
          for (const c of roundRobinOrder(contenders, round)) {
            context.log(`telemetry invoke round ${round + 1}/${rounds}: ${c.label}`);
            const conn = conns.get(c.id)!;
            const into = latencies.get(c.id)!;
            for (const [key, calls, concurrency] of [
              ["c1", callsAt1, 1],
              ["c32", callsAt32, 32],
            ] as const) {
              const run = await echoLoad(conn, calls, concurrency);
              into[key].push(...run.latenciesMs);
              into.failures += run.failures;
            }
          }
        }
      } finally {
        await Promise.all([...conns.values()].map((conn) => conn.close()));
      }

      const received = receiver.spans();
      const exported = `a recording span per call, batched to the receiver (${received.length} spans received, ${received.filter((span) => span.name.endsWith("/Invoke")).length} of them Invoke)`;
      const baseline = base.ok ? "base" : "off";
      const baseLabel = base.ok ? "before tracing" : "telemetry off";
      const startupOf = (id: string) => median(startup.get(id) ?? []);
      figures.push(
        compared(
          "spawn → GetSchema reply, telemetry off",
          startupOf("off"),
          formatMs,
          { label: baseLabel, value: startupOf(baseline) },
          base.ok ? 1.1 : undefined,
        ),
      );
      figures.push(
        compared(
          "spawn → GetSchema reply, export on",
          startupOf("on"),
          formatMs,
          { label: "telemetry off", value: startupOf("off") },
          undefined,
          "the SDK and exporter imported before the handshake",
        ),
      );
      for (const [level, key] of [
        ["1", "c1"],
        ["32", "c32"],
      ] as const) {
        const p50 = (id: string) => percentile(latencies.get(id)?.[key] ?? [], 50);
        figures.push(
          compared(
            `Invoke p50, concurrency ${level}, telemetry off`,
            p50("off"),
            formatMs,
            { label: baseLabel, value: p50(baseline) },
            base.ok ? 1.1 : undefined,
          ),
        );
        figures.push(
          compared(
            `Invoke p50, concurrency ${level}, export on`,
            p50("on"),
            formatMs,
            { label: "telemetry off", value: p50("off") },
            undefined,
            exported,
          ),
        );
      }
      const failed = [...latencies.entries()]
        .filter(([, l]) => l.failures > 0)
        .map(([id, l]) => `${id}: ${l.failures}`);
      if (failed.length > 0) failures.push(`failed calls: ${failed.join(", ")}`);
      if (receiver.failures.length > 0)
        failures.push(
          `the receiver could not decode ${receiver.failures.length} export(s): ${receiver.failures.slice(0, 3).join("; ")}`,
        );
    } finally {
      await receiver.close();
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        `The hand-declared bench provider (bench/fixtures/bench-provider.ts), bundled with esbuild from this checkout and from the sources of ${baseCommit} (the runtime before tracing); the export-on process has OTEL_EXPORTER_OTLP_TRACES_ENDPOINT pointing at an OTLP receiver in the bench process and imports @opentelemetry/sdk-trace-node, resources and exporter-trace-otlp-proto from node_modules beside the bundle.`,
        `Every call carries the kernel's traceparent. Start-up: median of ${launches} round-robin launches (spawn → first GetSchema reply) after a warm-up round. Invoke: \`echo\` round trips, ${callsAt1} calls at concurrency 1 and ${callsAt32} at 32 per block, ${rounds} round(s) round-robin after a warm-up; p50 over the pooled latencies.`,
        "Target: telemetry off within 1.1× of the runtime before tracing (noise on these machines is ±5–10%); the export-on rows are the cost reported, without a target.",
      ],
      figures,
      notes,
      failures,
    };
  },
};
