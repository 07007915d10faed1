/**
 * Driving Invoke calls through a PluginConnection: `total` calls with at most `concurrency` in
 * flight, each timed from request to the stream's end, each required to end in a result.
 */
import type { PluginConnection } from "./plugin-connection.js";

/** What a load run measured. */
export interface LoadRun {
  /** Per-call round-trip latencies in ms. */
  readonly latenciesMs: number[];
  readonly wallMs: number;
  readonly callsPerSecond: number;
  /** Calls that did not end in a `result` event, with the first reason. */
  readonly failures: number;
  readonly firstFailure: string | undefined;
}

let callCounter = 0;

/** Runs `total` echo calls at `concurrency` (the trivial tool). */
export async function echoLoad(conn: PluginConnection, total: number, concurrency: number): Promise<LoadRun> {
  const latenciesMs: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next++;
      const t0 = performance.now();
      try {
        const outcome = await conn.invoke(`call-${callCounter++}`, "echo", { text: "hello" });
        if (outcome.terminal !== "result")
          throw new Error(`the stream ended with ${outcome.terminal ?? "no terminal event"}`);
        latenciesMs.push(performance.now() - t0);
      } catch (error) {
        failures++;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  const wallMs = performance.now() - started;
  return { latenciesMs, wallMs, callsPerSecond: (latenciesMs.length / wallMs) * 1000, failures, firstFailure };
}
