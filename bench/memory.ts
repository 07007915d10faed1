/**
 * Suite 5, memory, as the kernel pays it: each contender launched by the go-plugin v1.8.0 host and
 * Configure'd; idle RSS of the launched process tree (supervisor, provider and watchdog for
 * harness-tool) after a pause; then RSS as echo Invokes go by. A leak shows as growth between the
 * warm sample (after the first block) and the last.
 */
import { invokeRequest, kernelBench, processTree, rssKb, servingPid, treeRssKb } from "./kernel-contenders.js";
import { beforeAfter, otherRows, Samples, threeWay } from "./kernel-figures.js";
import { benchGoPluginVersion } from "./kernel-host.js";
import { launchAll } from "./invoke.js";
import { median, sleep } from "./measure.js";
import { absolute, formatKb, failedFigure, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/** Memory targets: idle against the bare server, and growth over many calls. */
const targets = { idleRatio: 1.1, growthKb: 10 * 1024 } as const;

/** The memory suite. */
export const memorySuite: Suite = {
  id: "memory",
  title: "5. Memory (idle RSS after Configure, RSS over many invokes, through go-plugin)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const total = context.quick ? 5000 : 100_000;
    const blocks = 10;
    const perBlock = total / blocks;
    const settleMs = context.quick ? 500 : 2000;
    const bench = await kernelBench(context, true);
    if ("skip" in bench)
      return {
        id: this.id,
        title: this.title,
        method: [],
        figures: [failedFigure("memory", bench.skip)],
        notes: [bench.skip],
      };
    const { host, contenders, notes } = bench;
    const { ws } = await context.packagedWorkspace();
    const figures: Figure[] = [];
    const samples = new Samples();
    const curves = new Map<string, number[]>();
    const failures = new Map<string, number>();
    const echo = invokeRequest("echo", { text: "hello" }, ws.root);
    try {
      const live = await launchAll(host, contenders, undefined);
      await sleep(settleMs);
      for (const [id, { pid }] of live) {
        samples.add(id, "idle", treeRssKb(pid));
        samples.add(id, "idle-serving", rssKb(servingPid(pid)));
        samples.add(id, "processes", processTree(pid).length);
      }
      const core = contenders.filter((c) => c.id === "harness-tool" || c.id === "bare" || c.id === "go");
      for (let block = 0; block < blocks; block++) {
        context.log(`memory: invokes ${(block + 1) * perBlock}/${total}`);
        // Contenders alternate block by block, so they see the same machine.
        for (const c of core) {
          const run = await host.load(c.id, echo, perBlock, 32);
          failures.set(c.id, (failures.get(c.id) ?? 0) + run.failures);
          curves.set(c.id, [...(curves.get(c.id) ?? []), treeRssKb(live.get(c.id)?.pid ?? -1)]);
        }
      }
      await sleep(settleMs);
      for (const c of core) curves.get(c.id)?.push(treeRssKb(live.get(c.id)?.pid ?? -1));
    } finally {
      await host.close();
    }
    const serving = samples.three("idle-serving", median);
    figures.push(
      threeWay(
        "idle RSS after Configure (the launched process tree)",
        samples.three("idle", median),
        formatKb,
        { maxRatio: targets.idleRatio },
        `harness-tool's ${median(samples.get("harness-tool", "processes"))} processes; its serving process alone ${formatKb(serving.ours)} (${(serving.ours / serving.bare).toFixed(2)}× bare)`,
      ),
    );
    figures.push(
      ...beforeAfter("idle RSS after Configure", samples, "idle", median, formatKb),
      ...otherRows(contenders, "idle RSS after Configure", samples, "idle", median, formatKb),
    );
    for (const [id, curve] of curves) {
      const warm = curve[0];
      const last = curve[curve.length - 1];
      if (warm === undefined || last === undefined || last === 0) {
        figures.push(failedFigure(`${id}: RSS growth`, "could not read /proc/<pid>/status"));
        continue;
      }
      const growth = last - warm;
      const failed = failures.get(id) ?? 0;
      figures.push(
        absolute(
          `${id}: RSS after ${total} invokes`,
          `${formatKb(last)} (${growth >= 0 ? "+" : ""}${(growth / 1024).toFixed(1)} MB since ${perBlock}; peak ${formatKb(Math.max(...curve))})`,
          id === "harness-tool" && !context.quick
            ? { target: "growth ≤ 10 MB", ok: growth <= targets.growthKb && failed === 0 }
            : undefined,
          `RSS every ${perBlock} calls, MB: ${curve.map((v) => (v / 1024).toFixed(0)).join(" ")}${failed > 0 ? `; ${failed} failed calls` : ""}${context.quick ? "; quick run: too few calls to judge growth" : ""}`,
        ),
      );
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        `The contenders of the start-up suite launched by the go-plugin ${benchGoPluginVersion} host and Configure'd, idle for ${settleMs} ms, then VmRSS summed over each launched process tree (/proc/<pid>/task/*/children): harness-tool's is the supervisor, the provider and the orphan watchdog, as the kernel's machine pays it; the serving process alone is in the note, and harness-tool with HARNESS_TOOL_SUPERVISOR=off is measured beside.`,
        `${total} echo invokes at concurrency 32 in ${blocks} blocks, alternating between the contenders; tree VmRSS after each block and after a final pause. No forced GC (production runs without --expose-gc): a few MB of drift is noise, a per-call leak of 100 B shows as ~9 MB.`,
        `Targets: idle RSS ≤ ${targets.idleRatio}× the bare server; growth at most 10 MB with no failed calls.`,
      ],
      figures,
      notes,
      failures: [...failures].filter(([, n]) => n > 0).map(([id, n]) => `${id}: ${n} failed calls`),
    };
  },
};
