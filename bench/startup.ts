/**
 * Suite 3, start-up: spawn → handshake line and spawn → first GetSchema reply, median of N
 * round-robin launches, for the bench provider (bundled, and unbundled against the built package)
 * against a bare `node -e` printing one line (the floor) and a bare grpc-js server (informative).
 */
import {
  bundleBareServer,
  bundleGeneratedProvider,
  bundleGeneratedSynthetic,
  bundleProvider,
  compileProviderAgainstPackage,
  type BuiltEntry,
} from "./provider-builds.js";
import { median, roundRobinOrder } from "./measure.js";
import { PluginConnection } from "./plugin-connection.js";
import { compared, formatMs, unavailable, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

interface Contender {
  readonly id: string;
  readonly label: string;
  readonly args: readonly string[];
  /** Whether it serves gRPC (GetSchema is timed). */
  readonly grpc: boolean;
  readonly stop: "controller" | "sigterm";
}

interface Samples {
  handshake: number[];
  schema: number[];
  failure: string | undefined;
}

/** One launch: handshake and (for gRPC contenders) the first GetSchema, then an orderly stop. */
async function launchOnce(c: Contender): Promise<{ handshakeMs: number; schemaMs: number | undefined }> {
  const conn = await PluginConnection.launch(process.execPath, c.args, { timeoutMs: 15_000, connect: c.grpc, stop: c.stop });
  try {
    let schemaMs: number | undefined;
    if (c.grpc) {
      await conn.getSchema();
      schemaMs = conn.elapsedMs();
    }
    return { handshakeMs: conn.handshakeMs, schemaMs };
  } finally {
    await conn.close();
  }
}

/** Turns a build into a contender, or records why it is missing. */
function contenderFrom(built: BuiltEntry, id: string, label: string, stop: Contender["stop"], notes: string[]): Contender | undefined {
  if (!built.ok) {
    notes.push(`${label}: ${built.why}`);
    return undefined;
  }
  return { id, label, args: [built.file], grpc: true, stop };
}

/** The start-up suite. */
export const startupSuite: Suite = {
  id: "startup",
  title: "3. Start-up (spawn → handshake line, spawn → first GetSchema reply)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const runs = context.runs ?? (context.quick ? 3 : 20);
    const notes: string[] = [];
    const figures: Figure[] = [];
    const { ws, build } = await context.packagedWorkspace();
    const floor: Contender = {
      id: "floor",
      label: "bare node",
      args: ["-e", "process.stdout.write('1|1|unix|/tmp/none|grpc\\n')"],
      grpc: false,
      stop: "sigterm",
    };
    const bare = contenderFrom(await bundleBareServer(ws), "bare-grpc", "bare grpc-js server", "sigterm", notes);
    const syntheticTools = context.quick ? 10 : 100;
    const built = build.ok;
    const generated = built ? contenderFrom(await bundleGeneratedProvider(ws), "generated", "generated provider (bundle)", "controller", notes) : undefined;
    const bundled = contenderFrom(await bundleProvider(ws), "bundled", "hand-declared provider (bundle)", "controller", notes);
    const packaged = built
      ? contenderFrom(await compileProviderAgainstPackage(ws), "packaged", "hand-declared provider (tsc-built package)", "controller", notes)
      : undefined;
    const synthetic = built
      ? contenderFrom(
          await bundleGeneratedSynthetic(ws, syntheticTools),
          "synthetic",
          `generated ${syntheticTools}-tool synthetic provider (bundle)`,
          "controller",
          notes,
        )
      : undefined;
    if (!built) notes.push("the package did not build: only the hand-declared bundle runs");
    const contenders = [floor, bare, generated, bundled, packaged, synthetic].filter((c): c is Contender => c !== undefined);
    const samples = new Map<string, Samples>(contenders.map((c) => [c.id, { handshake: [], schema: [], failure: undefined }]));
    // Round 0 warms the page cache and is not counted.
    for (let round = 0; round <= runs; round++) {
      context.log(`startup round ${round}/${runs}${round === 0 ? " (warm-up)" : ""}`);
      for (const c of roundRobinOrder(contenders, round)) {
        const s = samples.get(c.id) as Samples;
        if (s.failure !== undefined) continue;
        try {
          const r = await launchOnce(c);
          if (round === 0) continue;
          s.handshake.push(r.handshakeMs);
          if (r.schemaMs !== undefined) s.schema.push(r.schemaMs);
        } catch (error) {
          s.failure = error instanceof Error ? error.message : String(error);
        }
      }
    }
    const floorHandshake = median(samples.get("floor")?.handshake ?? []);
    const bareSamples = samples.get("bare-grpc");
    for (const c of contenders) {
      if (c.id === "floor") continue;
      const s = samples.get(c.id) as Samples;
      if (s.failure !== undefined) {
        figures.push(unavailable(`${c.label}: handshake`, s.failure));
        continue;
      }
      const target = c.id === "bare-grpc" ? undefined : 3;
      figures.push(compared(`${c.label}: spawn → handshake`, median(s.handshake), formatMs, { label: "bare node", value: floorHandshake }, target));
      figures.push(
        compared(
          `${c.label}: spawn → GetSchema reply`,
          median(s.schema),
          formatMs,
          { label: "bare node line", value: floorHandshake },
          target,
          bareSamples && c.id !== "bare-grpc" ? `bare grpc-js server: ${formatMs(median(bareSamples.schema))}` : undefined,
        ),
      );
    }
    const floorSamples = samples.get("floor") as Samples;
    if (floorSamples.failure) notes.push(`bare node floor failed: ${floorSamples.failure}`);
    return {
      id: this.id,
      title: this.title,
      method: [
        `Each launch spawns \`${process.execPath}\` with the kernel's handshake environment (cookie, PLUGIN_PROTOCOL_VERSIONS=1, PLUGIN_MIN_PORT/MAX_PORT; PATH, HOME, TMPDIR only), times the first stdout line, then (gRPC contenders) connects a grpc-js client to the unix socket it names and times the first GetSchema reply from spawn; then stops it (go-plugin's Shutdown rpc; SIGTERM for the baselines).`,
        `Median of ${runs} launches per contender, round-robin, after one uncounted warm-up round. The floor is \`node -e\` writing one line.`,
        "Providers: the 2-tool bench provider generated by protoc-gen-harness-tool from bench/fixtures/bench-provider.proto (esbuild bundle of the entry, the generated code and the built package's JS: one .mjs, every dependency inlined); the same tools hand-declared with the builder (bench/fixtures/bench-provider.ts), bundled from the sources and as its entry alone against the tsc-built package in node_modules (unbundled); and the generated synthetic provider of the codegen suite (bundled). The bare server is bench/fixtures/bare-tool-server.ts, bundled.",
        "Target: each harness-tool figure at most 3× the floor's handshake line.",
      ],
      figures,
      notes,
    };
  },
};
