/**
 * Suite 6, streams: the throughput of a process-backed tool through the wire (`cat` of a file run
 * by the flood provider's `run` tool, every output chunk read by the host) against `cat` of the
 * same file read by the same host with no provider (the bare pipe), measured in the same run, with
 * the bench's grpc-js client and, where Go is installed, with go-plugin v1.8.0 (the kernel's
 * client); and the provider's peak RSS while a host reads slowly (a pause after every event) from
 * a child and from a handler emitting as fast as it can.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { openSync, readFileSync, writeSync, closeSync } from "node:fs";
import path from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { ConfigureRequestSchema, InvokeRequestSchema } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { buildGoHost, GoHost } from "../test/runtime/interop/go-host.js";
import { servingPid } from "../test/support/serving-process.js";
import { median, roundRobinOrder, sleep } from "./measure.js";
import { PluginConnection } from "./plugin-connection.js";
import { bundleFloodProvider } from "./provider-builds.js";
import { absolute, compared, unavailable, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

const mib = 1024 * 1024;
/** Target: through the wire at least half the bare pipe's throughput. */
const minThroughputRatio = 0.5;
/** The bound test/runtime/interop/flow-control-scenarios.ts states for the provider's peak above idle. */
const peakAboveIdleBoundMb = 64;

/** Writes `size` MiB of random bytes (one random MiB repeated) and returns the file. */
function writeDataFile(dir: string, size: number): string {
  const file = path.join(dir, `stream-${size}m.bin`);
  const block = randomBytes(mib);
  const fd = openSync(file, "w");
  for (let i = 0; i < size; i++) writeSync(fd, block);
  closeSync(fd);
  return file;
}

/** `cat file` read by this process with no provider between: bytes and wall time. */
function barePipe(file: string): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("cat", [file], { stdio: ["ignore", "pipe", "ignore"] });
    let bytes = 0;
    child.stdout.on("data", (data: Buffer) => (bytes += data.byteLength));
    child.on("error", reject);
    child.on("close", () => resolve({ bytes, ms: performance.now() - started }));
  });
}

/** VmHWM (peak) and VmRSS of a process, KiB. */
function memoryKb(pid: number): { peak: number; rss: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1]);
    return { peak: kb("VmHWM"), rss: kb("VmRSS") };
  } catch {
    return undefined;
  }
}

const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

/** A throughput figure whose target is a minimum ratio (higher is better). */
function throughputFigure(name: string, wire: number[], bare: number[], bareLabel: string, note: string): Figure {
  const f = compared(name, median(wire), (v) => `${v.toFixed(0)} MB/s`, { label: bareLabel, value: median(bare) }, undefined, note);
  const ratio = f.ratio;
  return { ...f, target: `≥ ${minThroughputRatio}×`, verdict: ratio === undefined ? "n/a" : ratio >= minThroughputRatio ? "pass" : "miss" };
}

const range = (values: readonly number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;

/** The streams suite. */
export const streamsSuite: Suite = {
  id: "streams",
  title: "6. Streams (a process-backed tool through the wire; memory under a slow reader)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const sizeMib = context.quick ? 32 : 256;
    const slowMib = context.quick ? 16 : 256;
    const rounds = context.runs ?? (context.quick ? 1 : 5);
    const notes: string[] = [];
    const figures: Figure[] = [];
    const { ws } = await context.packagedWorkspace();
    const provider = await bundleFloodProvider(ws);
    if (!provider.ok) return { id: this.id, title: this.title, method: [], figures: [unavailable("streams", provider.why)], notes };
    context.log(`streams: writing ${sizeMib} MiB of data`);
    const file = writeDataFile(ws.root, sizeMib);
    const expected = sizeMib * mib;
    const launchProvider = async () => {
      const conn = await PluginConnection.launch(process.execPath, [provider.file], { timeoutMs: 15_000 });
      await conn.getSchema();
      await conn.configure();
      return conn;
    };

    // Fast reader, grpc-js client: the bench process reads every chunk as it comes.
    const conn = await launchProvider();
    try {
      const wire: number[] = [];
      const bare: number[] = [];
      await conn.invoke("warm", "run", { command: `head -c ${8 * mib} ${file}` }, 120_000);
      for (let round = 0; round < rounds; round++) {
        for (const which of roundRobinOrder(["wire", "bare"] as const, round)) {
          context.log(`streams round ${round + 1}/${rounds}: ${which}, grpc-js client`);
          if (which === "bare") {
            const run = await barePipe(file);
            if (run.bytes !== expected) throw new Error(`cat delivered ${run.bytes} of ${expected} bytes`);
            bare.push(mbps(run.bytes, run.ms));
          } else {
            const started = performance.now();
            const outcome = await conn.invoke(`cat-${round}`, "run", { command: `cat ${file}` }, 300_000);
            const ms = performance.now() - started;
            if (outcome.chunkBytes !== expected || outcome.terminal !== "result")
              throw new Error(`the tool delivered ${outcome.chunkBytes} of ${expected} bytes, then ${outcome.terminal}`);
            wire.push(mbps(outcome.chunkBytes, ms));
          }
        }
      }
      figures.push(
        throughputFigure(
          `cat of ${sizeMib} MiB through the wire, grpc-js client`,
          wire,
          bare,
          "bare pipe",
          `MB/s per round: wire ${range(wire)}, bare ${range(bare)}; medians of ${rounds}`,
        ),
      );
    } finally {
      await conn.close();
    }

    // Fast reader, go-plugin v1.8.0: the kernel's own client library, hashing what it reads.
    const go = buildGoHost();
    if ("skip" in go) notes.push(`go-plugin host: ${go.skip}`);
    else {
      const host = new GoHost(go.binary);
      try {
        const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
        await host.request({ op: "launch", command: process.execPath, args: [provider.file], dir: ws.root });
        await host.request({
          op: "unary",
          method: "/pluggableharness.tool.v1.ToolService/Configure",
          request: b64(toBinary(ConfigureRequestSchema, create(ConfigureRequestSchema, { config: {} }))),
        });
        const wire: number[] = [];
        const bare: number[] = [];
        // The host keeps only bytes and SHA-256 per stream of the output chunks (digest).
        const request = async (command: string) => {
          const call = { id: "cat", toolName: "run", arguments: { command }, callContext: { sessionId: "bench", turnId: "1", workingDirectory: ws.root } };
          const result = await host.request({ op: "invoke", digest: true, request: b64(toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call }))) });
          return (result.digest as { stdout: { bytes: number } } | undefined)?.stdout.bytes;
        };
        await request(`head -c ${8 * mib} ${file}`);
        for (let round = 0; round < rounds; round++) {
          for (const which of roundRobinOrder(["wire", "bare"] as const, round)) {
            context.log(`streams round ${round + 1}/${rounds}: ${which}, go-plugin host`);
            const started = performance.now();
            if (which === "bare") {
              const run = await host.request({ op: "pipe", command: "cat", args: [file] });
              if (run.bytes !== expected) throw new Error(`cat delivered ${String(run.bytes)} of ${expected} bytes to the Go host`);
              bare.push(mbps(expected, Number(run.ms)));
            } else {
              const delivered = await request(`cat ${file}`);
              const ms = performance.now() - started;
              if (delivered !== expected) throw new Error(`the tool delivered ${delivered} of ${expected} bytes to the Go host`);
              wire.push(mbps(expected, ms));
            }
          }
        }
        figures.push(
          throughputFigure(
            `cat of ${sizeMib} MiB through the wire, go-plugin v1.8.0 host`,
            wire,
            bare,
            "bare pipe into the Go host",
            `MB/s per round: wire ${range(wire)}, bare ${range(bare)}; the host hashes (SHA-256) what it reads in both; medians of ${rounds}`,
          ),
        );
      } catch (error) {
        notes.push(`go-plugin host: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await host.close();
      }
    }

    // Slow reader: a fresh provider per producer, its peak RSS against its idle RSS.
    for (const producer of ["child", "handler"] as const) {
      const slow = await launchProvider();
      try {
        await slow.invoke(
          "warm",
          producer === "child" ? "run" : "flood",
          producer === "child" ? { command: `head -c ${mib} ${file}` } : { bytes: mib },
          60_000,
        );
        await sleep(context.quick ? 200 : 1000);
        const idle = memoryKb(servingPid(slow.child.pid ?? -1));
        context.log(`streams: ${producer} writing ${slowMib} MiB to a slow reader`);
        const started = performance.now();
        const args = producer === "child" ? { command: `head -c ${slowMib * mib} ${file}` } : { bytes: slowMib * mib };
        const outcome = await slow.invoke(`slow-${producer}`, producer === "child" ? "run" : "flood", args, 600_000, 1);
        const ms = performance.now() - started;
        const after = memoryKb(servingPid(slow.child.pid ?? -1));
        if (!idle || !after) {
          figures.push(unavailable(`peak RSS, ${producer}, slow reader`, "could not read /proc/<pid>/status"));
          continue;
        }
        const aboveMb = (after.peak - idle.rss) / 1024;
        const delivered = outcome.chunkBytes === slowMib * mib && outcome.terminal === "result";
        figures.push(
          absolute(
            `provider peak RSS above idle, ${producer} writing ${slowMib} MiB to a slow reader`,
            `${aboveMb.toFixed(1)} MB (peak ${(after.peak / 1024).toFixed(0)} MB, idle ${(idle.rss / 1024).toFixed(0)} MB)`,
            { target: `< ${peakAboveIdleBoundMb} MB, every byte delivered`, ok: aboveMb < peakAboveIdleBoundMb && delivered },
            `read at ${mbps(outcome.chunkBytes, ms).toFixed(0)} MB/s (1 ms pause after every event); ${outcome.events} events${delivered ? "" : `; DELIVERED ${outcome.chunkBytes} bytes, ${outcome.terminal ?? "no terminal"}`}`,
          ),
        );
      } finally {
        await slow.close();
      }
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        `The flood provider of the flow-control tests (test/runtime/interop/fixtures/flood-provider.ts), bundled (esbuild), launched with the kernel's handshake environment and Configure'd; a data file of ${sizeMib} MiB (one random MiB repeated).`,
        `Throughput: the provider's process-backed \`run\` tool executes \`cat <file>\` and the host reads every output chunk, against the same host spawning \`cat <file>\` itself and reading its stdout (the bare pipe); ${rounds} round(s), contenders alternating, after a warm-up; wall time from the call (spawn) to the end of the stream. Hosts: this process's grpc-js client (counting bytes), and the go-plugin v1.8.0 host of test/runtime/interop (SHA-256 of every byte in both cases) where Go is installed.`,
        `Memory: a fresh provider per producer, warmed up with one small call, idle VmRSS after a pause; then a child (\`head -c ${slowMib} MiB\`) or a handler (\`flood\`, awaiting each ctx.output) writes ${slowMib} MiB to a grpc-js reader pausing 1 ms after every event; VmHWM (peak) after the call minus the idle VmRSS.`,
        `Targets: throughput at least ${minThroughputRatio}× the bare pipe's with a fast reader; peak under ${peakAboveIdleBoundMb} MB above idle with a slow one (flat: independent of how much streams by).`,
      ],
      figures,
      notes,
    };
  },
};
