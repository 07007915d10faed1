/**
 * Suite 4, Invoke: round-trip latency (p50, p99) and calls per second at 1 and 32 concurrent calls
 * of a trivial tool through the go-plugin connection (unix socket from the handshake line), for the
 * bench provider against the bare grpc-js server; and a process-backed tool streaming 10,000
 * output chunks (MB/s). Contenders alternate block by block, so they share the machine's noise.
 */
import { echoLoad, type LoadRun } from "./call-load.js";
import { median, percentile, roundRobinOrder } from "./measure.js";
import { PluginConnection } from "./plugin-connection.js";
import { bundleBareServer, bundleProvider } from "./provider-builds.js";
import { compared, formatMs, unavailable, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/** One contender's process. */
export interface LaunchedContender {
  readonly id: "harness-tool" | "bare";
  readonly label: string;
  readonly conn: PluginConnection;
}

/**
 * Launches the bundled bench provider (Configure'd, as the kernel does before Invoke) and the bare
 * server; the caller closes them. Missing contenders are explained in `notes`.
 */
export async function launchContenders(context: SuiteContext, notes: string[]): Promise<LaunchedContender[]> {
  const { ws } = await context.packagedWorkspace();
  const launched: LaunchedContender[] = [];
  const provider = await bundleProvider(ws);
  if (!provider.ok) notes.push(`harness-tool provider: ${provider.why}`);
  else {
    try {
      const conn = await PluginConnection.launch(process.execPath, [provider.file], { timeoutMs: 15_000 });
      await conn.getSchema();
      await conn.configure();
      launched.push({ id: "harness-tool", label: "harness-tool", conn });
    } catch (error) {
      notes.push(`harness-tool provider did not start: ${error instanceof Error ? error.message : String(error)} (serve() not available?)`);
    }
  }
  const bare = await bundleBareServer(ws);
  if (!bare.ok) notes.push(`bare server: ${bare.why}`);
  else {
    try {
      const conn = await PluginConnection.launch(process.execPath, [bare.file], { timeoutMs: 15_000, stop: "sigterm" });
      launched.push({ id: "bare", label: "bare grpc-js", conn });
    } catch (error) {
      notes.push(`bare server did not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return launched;
}

interface Pooled {
  latencies: number[];
  rates: number[];
  failures: number;
  firstFailure: string | undefined;
}

function pool(into: Pooled, run: LoadRun): void {
  into.latencies.push(...run.latenciesMs);
  into.rates.push(run.callsPerSecond);
  into.failures += run.failures;
  into.firstFailure ??= run.firstFailure;
}

/** The Invoke suite. */
export const invokeSuite: Suite = {
  id: "invoke",
  title: "4. Invoke (round trip through the go-plugin connection)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const rounds = context.runs ?? (context.quick ? 1 : 5);
    const callsAt1 = context.quick ? 200 : 2000;
    const callsAt32 = context.quick ? 1000 : 10_000;
    const chunkCount = 10_000;
    const chunkSize = 1024;
    const notes: string[] = [];
    const figures: Figure[] = [];
    const contenders = await launchContenders(context, notes);
    try {
      const ours = contenders.find((c) => c.id === "harness-tool");
      const bare = contenders.find((c) => c.id === "bare");
      if (!ours || !bare) {
        return { id: this.id, title: this.title, method: [], figures: [unavailable("Invoke", "serve() not available or the bare server did not start: see the notes")], notes };
      }
      const results = new Map<string, { c1: Pooled; c32: Pooled; streamMs: number[]; streamBytes: number; streamFailure: string | undefined }>();
      for (const c of contenders) {
        results.set(c.id, { c1: { latencies: [], rates: [], failures: 0, firstFailure: undefined }, c32: { latencies: [], rates: [], failures: 0, firstFailure: undefined }, streamMs: [], streamBytes: 0, streamFailure: undefined });
        context.log(`invoke: warming up ${c.label}`);
        await echoLoad(c.conn, context.quick ? 200 : 1000, 32);
      }
      for (let round = 0; round < rounds; round++) {
        for (const c of roundRobinOrder(contenders, round)) {
          const r = results.get(c.id);
          if (!r) continue;
          context.log(`invoke round ${round + 1}/${rounds}: ${c.label}`);
          pool(r.c1, await echoLoad(c.conn, callsAt1, 1));
          pool(r.c32, await echoLoad(c.conn, callsAt32, 32));
          const t0 = performance.now();
          try {
            const outcome = await c.conn.invoke(`stream-${round}`, "emit_chunks", { count: chunkCount, size: chunkSize }, 120_000);
            if (outcome.terminal !== "result") throw new Error(`the stream ended with ${outcome.terminal ?? "no terminal event"}`);
            r.streamMs.push(performance.now() - t0);
            r.streamBytes = outcome.chunkBytes;
            if (outcome.chunkBytes !== chunkCount * chunkSize) r.streamFailure = `received ${outcome.chunkBytes} bytes of ${chunkCount * chunkSize}`;
          } catch (error) {
            r.streamFailure ??= error instanceof Error ? error.message : String(error);
          }
        }
      }
      const o = results.get("harness-tool");
      const b = results.get("bare");
      if (o && b) {
        for (const [level, key] of [["1", "c1"], ["32", "c32"]] as const) {
          const failures = o[key].failures + b[key].failures;
          const note = failures > 0 ? `failed calls: harness-tool ${o[key].failures}, bare ${b[key].failures}; first: ${o[key].firstFailure ?? b[key].firstFailure}` : undefined;
          figures.push(compared(`p50 latency, concurrency ${level}`, percentile(o[key].latencies, 50), formatMs, { label: "bare", value: percentile(b[key].latencies, 50) }, 1.25, note));
          figures.push(compared(`p99 latency, concurrency ${level}`, percentile(o[key].latencies, 99), formatMs, { label: "bare", value: percentile(b[key].latencies, 99) }));
          figures.push(compared(`calls/s, concurrency ${level}`, median(o[key].rates), (v) => `${v.toFixed(0)}/s`, { label: "bare", value: median(b[key].rates) }, undefined, "higher is better: a ratio below 1 is slower"));
        }
        const mbps = (r: typeof o) => r.streamBytes / 1e6 / (median(r.streamMs) / 1000);
        if (o.streamFailure || b.streamFailure) {
          figures.push(unavailable("streaming 10,000 chunks", `harness-tool: ${o.streamFailure ?? "ok"}; bare: ${b.streamFailure ?? "ok"}`));
        } else {
          figures.push(compared(`streaming ${chunkCount} × ${chunkSize} B output chunks`, mbps(o), (v) => `${v.toFixed(1)} MB/s`, { label: "bare", value: mbps(b) }, undefined, `median stream ${formatMs(median(o.streamMs))} vs ${formatMs(median(b.streamMs))}; higher is better`));
        }
      }
    } finally {
      await Promise.all(contenders.map((c) => c.conn.close()));
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        "Both processes run bundled (esbuild) and are reached through the unix socket of their handshake line, with the same grpc-js client and protobuf-es (de)serialization; the provider was Configure'd first, as the kernel does.",
        "Trivial tool: `echo` (data_source, input {text}), validated and run by harness-tool's service; the bare server returns the arguments as the result with no validation.",
        `Per round and contender (round-robin): ${callsAt1} calls at concurrency 1, ${callsAt32} at concurrency 32, one \`emit_chunks\` stream of ${chunkCount} chunks of ${chunkSize} B; ${rounds} round(s) after a warm-up. Latencies pooled over rounds (p50, p99, nearest rank); calls/s and MB/s are medians over rounds.`,
        "Target: p50 at most 1.25× the bare server's.",
      ],
      figures,
      notes,
    };
  },
};
