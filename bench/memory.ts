/**
 * Suite 5, memory: the provider's idle RSS (VmRSS after start-up, GetSchema and Configure, then a
 * pause) and its RSS as 100,000 invokes go by, against the bare grpc-js server doing the same. A
 * leak shows as growth between the warm sample (after the first 10%) and the last.
 */
import { echoLoad } from "./call-load.js";
import { launchContenders } from "./invoke.js";
import { sleep } from "./measure.js";
import { absolute, compared, formatKb, unavailable, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

const idleLimitKb = 70 * 1024;
const growthLimitKb = 10 * 1024;

/** The memory suite. */
export const memorySuite: Suite = {
  id: "memory",
  title: "5. Memory (idle RSS, RSS over 100,000 invokes)",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const total = context.quick ? 5000 : 100_000;
    const blocks = 10;
    const perBlock = total / blocks;
    const settleMs = context.quick ? 500 : 2000;
    const notes: string[] = [];
    const figures: Figure[] = [];
    const contenders = await launchContenders(context, notes);
    try {
      const ours = contenders.find((c) => c.id === "harness-tool");
      if (!ours) return { id: this.id, title: this.title, method: [], figures: [unavailable("memory", "serve() not available: see the notes")], notes };
      await sleep(settleMs);
      const idle = new Map(contenders.map((c) => [c.id, c.conn.rssKb()]));
      const curves = new Map<string, (number | undefined)[]>(contenders.map((c) => [c.id, []]));
      const failures = new Map<string, number>(contenders.map((c) => [c.id, 0]));
      for (let block = 0; block < blocks; block++) {
        context.log(`memory: invokes ${(block + 1) * perBlock}/${total}`);
        // Contenders alternate block by block, so they see the same machine.
        for (const c of contenders) {
          const run = await echoLoad(c.conn, perBlock, 32);
          failures.set(c.id, (failures.get(c.id) ?? 0) + run.failures);
          curves.get(c.id)?.push(c.conn.rssKb());
        }
      }
      await sleep(settleMs);
      for (const c of contenders) curves.get(c.id)?.push(c.conn.rssKb());
      const bare = contenders.find((c) => c.id === "bare");
      const ourIdle = idle.get("harness-tool");
      const bareIdle = bare ? idle.get("bare") : undefined;
      if (ourIdle === undefined) figures.push(unavailable("idle RSS", "could not read /proc/<pid>/status"));
      else if (bareIdle !== undefined) {
        const f = compared("idle RSS", ourIdle, (kb) => formatKb(kb), { label: "bare grpc-js", value: bareIdle });
        figures.push({ ...f, target: "< 70 MB", verdict: ourIdle < idleLimitKb ? "pass" : "miss" });
      } else figures.push(absolute("idle RSS", formatKb(ourIdle), { target: "< 70 MB", ok: ourIdle < idleLimitKb }));
      for (const c of contenders) {
        const curve = curves.get(c.id) ?? [];
        const warm = curve[0];
        const last = curve[curve.length - 1];
        const peak = Math.max(...curve.filter((v): v is number => v !== undefined));
        const text = `${c.label}: RSS every ${perBlock} calls, MB: ${curve.map((v) => (v === undefined ? "?" : (v / 1024).toFixed(0))).join(" ")}`;
        if (warm === undefined || last === undefined) {
          figures.push(unavailable(`${c.label}: RSS growth`, "could not read /proc/<pid>/status"));
          continue;
        }
        const growth = last - warm;
        const failed = failures.get(c.id) ?? 0;
        figures.push(
          absolute(
            `${c.label}: RSS after ${total} invokes`,
            `${formatKb(last)} (${growth >= 0 ? "+" : ""}${(growth / 1024).toFixed(1)} MB since ${perBlock}; peak ${formatKb(peak)})`,
            c.id === "harness-tool" && !context.quick ? { target: "growth ≤ 10 MB", ok: growth <= growthLimitKb && failed === 0 } : undefined,
            `${text}${failed > 0 ? `; ${failed} failed calls` : ""}${context.quick ? "; quick run: too few calls to judge growth (heaps still warming up)" : ""}`,
          ),
        );
      }
    } finally {
      await Promise.all(contenders.map((c) => c.conn.close()));
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        "The bundled bench provider and the bare grpc-js server, started as in the Invoke suite (Configure'd), idle for a moment, then VmRSS from /proc/<pid>/status.",
        `${total} echo invokes at concurrency 32 in ${blocks} blocks, alternating between the contenders; VmRSS after each block and after a final pause. Growth is the last sample minus the first (after ${perBlock} calls, once heaps are warm); no forced GC (production runs without --expose-gc), so a few MB of drift is noise, a per-call leak of 100 B shows as ~9 MB.`,
        "Targets: idle RSS under 70 MB; growth at most 10 MB with no failed calls.",
      ],
      figures,
      notes,
    };
  },
};
