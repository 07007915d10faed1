/**
 * Suite 3, start-up, as the kernel sees it: the go-plugin v1.8.0 host (bench/kernel-host.ts)
 * launches each contender, times spawn → Client() (the handshake line read, connection made) and
 * spawn → the first GetSchema reply, then Kill() → exit; median of N interleaved launches.
 */
import { kernelBench, launchContender } from "./kernel-contenders.js";
import { beforeAfter, otherRows, Samples, threeWay } from "./kernel-figures.js";
import { benchGoPluginVersion } from "./kernel-host.js";
import { median, roundRobinOrder } from "./measure.js";
import { formatMs, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/** Start-up targets, against the bare server as the kernel launches both. */
const targets = { schemaRatio: 1.25, schemaMs: 50, killMs: 10 } as const;

/** The start-up suite. */
export const startupSuite: Suite = {
  id: "startup",
  title: "3. Start-up (spawn → GetSchema reply and Kill() → exit, through go-plugin)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const runs = context.runs ?? (context.quick ? 3 : 20);
    const bench = await kernelBench(context, true);
    if ("skip" in bench)
      return {
        id: this.id,
        title: this.title,
        method: [],
        figures: [failedFigure("start-up", bench.skip)],
        notes: [bench.skip],
      };
    const { host, contenders, notes } = bench;
    const samples = new Samples();
    const failed = new Map<string, string>();
    try {
      // Round 0 warms the page cache and is not counted.
      for (let round = 0; round <= runs; round++) {
        context.log(`startup round ${round}/${runs}${round === 0 ? " (warm-up)" : ""}`);
        for (const c of roundRobinOrder(contenders, round)) {
          if (failed.has(c.id)) continue;
          try {
            const launched = await launchContender(host, c, `${c.id}-${round}`, false);
            const killMs = await host.kill(`${c.id}-${round}`);
            if (round === 0) continue;
            samples.add(c.id, "handshake", launched.handshakeMs);
            samples.add(c.id, "schema", launched.schemaMs);
            samples.add(c.id, "kill", killMs);
          } catch (error) {
            failed.set(c.id, error instanceof Error ? error.message : String(error));
          }
        }
      }
    } finally {
      await host.close();
    }
    const failures = [...failed].map(([id, why]) => `${id} did not start: ${why}`);
    const figures: Figure[] = [
      threeWay("spawn → GetSchema reply", samples.three("schema", median), formatMs, {
        maxRatio: targets.schemaRatio,
        maxValue: { value: targets.schemaMs, label: `${targets.schemaMs} ms` },
      }),
      threeWay("spawn → handshake (go-plugin Client())", samples.three("handshake", median), formatMs),
      threeWay("Kill() → exit, no call in flight", samples.three("kill", median), formatMs, {
        maxValue: { value: targets.killMs, label: `${targets.killMs} ms` },
      }),
    ];
    figures.push(
      ...beforeAfter("spawn → GetSchema reply", samples, "schema", median, formatMs),
      ...beforeAfter("Kill() → exit", samples, "kill", median, formatMs),
      ...otherRows(contenders, "spawn → GetSchema reply", samples, "schema", median, formatMs),
      ...otherRows(contenders, "Kill() → exit", samples, "kill", median, formatMs),
    );
    return {
      id: this.id,
      title: this.title,
      method: [
        `The go-plugin ${benchGoPluginVersion} host of bench/go/host launches each contender as the kernel does (its handshake config, gRPC only, the kernel's minimal environment plus go-plugin's variables), then calls GetSchema; spawn → GetSchema reply is timed from just before plugin.NewClient to the reply; then Kill() (GRPCController/Shutdown, up to 2 s for the exit, then SIGKILL) is timed until go-plugin saw the process exit.`,
        `Median of ${runs} launches per contender, interleaved round by round (the order rotates), after one uncounted warm-up round.`,
        "Contenders: harness-tool = bench/fixtures/kernel-bench-provider.ts (`echo` and the exec example's `bash`) bundled by `harness-tool bundle` (dist/provider.mjs + provider.bundle.mjs, as users ship it), supervisor on (the default the kernel gets); bare grpc-js = bench/fixtures/bare-tool-server.ts bundled by the same command (grpc-js + protobuf-es, no validation, health, broker, stdio or supervisor: the Node floor); Go = bench/go/provider, the same two tools on go-plugin v1.8.0 with protoc-gen-go bindings of proto/.",
        `Targets: spawn → GetSchema ≤ ${targets.schemaRatio}× the bare server and ≤ ${targets.schemaMs} ms; Kill → exit ≤ ${targets.killMs} ms with no call in flight.`,
      ],
      figures,
      notes,
      failures,
    };
  },
};
