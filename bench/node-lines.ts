/**
 * Suite "node-lines", what each Node line does to a provider as the kernel pays it (the
 * default Node a release embeds is chosen with these figures): the same bundled provider
 * (bench/fixtures/kernel-bench-provider.ts, `harness-tool bundle`) run by the newest Node 20, 22,
 * 24 and 26 from the npm registry's node-<os>-<arch> packages (the binaries `release` embeds),
 * launched by the go-plugin v1.8.0 host: spawn → GetSchema reply, and idle RSS of the launched
 * process tree after Configure, each against Node 20 in the same run, interleaved. A line whose
 * binary cannot be had or whose provider does not start fails the suite: no figure is left blank.
 */
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { bundleCommand } from "../cli/commands/bundle-command.js";
import { nodeBinaryFor } from "../cli/release/node-binaries.js";
import { npmPackageVersions } from "../cli/release/node-lines.js";
import { embeddedNodeVersion, hostPlatformKey, releasePlatforms } from "../cli/release/release-platforms.js";
import { createWorkspace, repoRoot } from "./bench-workspace.js";
import { treeRssKb } from "./kernel-contenders.js";
import { benchGoPluginVersion, buildBenchGo, KernelHost } from "./kernel-host.js";
import { median, roundRobinOrder, sleep } from "./measure.js";
import { absolute, compared, formatKb, formatMs, type Figure, type SuiteReport } from "./report.js";
import type { Suite, SuiteContext } from "./suite.js";

/** The lines measured; the first is the reference every ratio is taken against. */
export const benchNodeMajors = [20, 22, 24, 26] as const;

/** The newest version of each major in `versions` (`x.y.z` only); throws naming a missing line. */
export function newestPerMajor(
  versions: readonly string[],
  majors: readonly number[],
  nodePackage: string,
): Map<number, string> {
  const out = new Map<number, string>();
  for (const major of majors) {
    const newest = versions
      .filter((v) => /^\d+\.\d+\.\d+$/.test(v) && Number(v.split(".")[0]) === major)
      .map((v) => v.split(".").map(Number) as [number, number, number])
      .sort((a, b) => a[1] - b[1] || a[2] - b[2])
      .at(-1);
    if (newest === undefined)
      throw new Error(`the npm registry has no ${nodePackage}@${major}: the Node ${major} line cannot be measured`);
    out.set(major, newest.join("."));
  }
  return out;
}

/** One launched configuration: a Node line, with or without the supervisor. */
interface LineContender {
  readonly id: string;
  readonly major: number;
  readonly version: string;
  readonly node: string;
  readonly supervised: boolean;
}

const silent = new Writable({ write: (_chunk, _encoding, done) => done() });

/** The environment a contender is launched with: the supervisor on (the default) or off. */
const contenderEnv = (c: LineContender) => (c.supervised ? {} : { HARNESS_TOOL_SUPERVISOR: "off" });

/** The newest Node of each measured line for this machine, fetched as `release` fetches it, once per mode. */
async function lineContenders(
  context: SuiteContext,
  modes: readonly boolean[],
): Promise<{ contenders: LineContender[]; versions: Map<number, string>; nodePackage: string }> {
  const hostKey = hostPlatformKey();
  const [platform] = hostKey === undefined ? [] : releasePlatforms([hostKey]);
  if (platform === undefined) throw new Error(`no node-<os>-<arch> package for ${process.platform} ${process.arch}`);
  const versions = newestPerMajor(
    await npmPackageVersions(platform.nodePackage),
    benchNodeMajors,
    platform.nodePackage,
  );
  const contenders: LineContender[] = [];
  for (const [major, version] of versions) {
    context.log(`fetching ${platform.nodePackage}@${version}`);
    const { file } = await nodeBinaryFor(platform, version);
    for (const supervised of modes)
      contenders.push({ id: `${major}${supervised ? "" : "-unsupervised"}`, major, version, node: file, supervised });
  }
  return { contenders, versions, nodePackage: platform.nodePackage };
}

/** spawn → GetSchema reply of each contender, `runs` interleaved rounds after a warm-up; throws when one does not start. */
async function measureStartUp(
  host: KernelHost,
  contenders: readonly LineContender[],
  provider: string,
  runs: number,
  context: SuiteContext,
): Promise<Map<string, number[]>> {
  const schema = new Map<string, number[]>();
  // Round 0 warms the page cache and is not counted.
  for (let round = 0; round <= runs; round++) {
    context.log(`node-lines start-up round ${round}/${runs}${round === 0 ? " (warm-up)" : ""}`);
    for (const c of roundRobinOrder(contenders, round)) {
      const id = `${c.id}-${round}`;
      const launched = await host.launch(id, c.node, [provider], contenderEnv(c)).catch((error: unknown) => {
        throw new Error(
          `Node ${c.version}${c.supervised ? "" : " (supervisor off)"} did not start the provider: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
      await host.kill(id);
      if (round > 0) schema.set(c.id, [...(schema.get(c.id) ?? []), launched.schemaMs]);
    }
  }
  return schema;
}

/** Idle RSS of each contender's process tree, all live at once and Configure'd, `rounds` times. */
async function measureIdle(
  host: KernelHost,
  contenders: readonly LineContender[],
  provider: string,
  rounds: number,
  settleMs: number,
  context: SuiteContext,
): Promise<Map<string, number[]>> {
  const idle = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    context.log(`node-lines idle RSS round ${round + 1}/${rounds}`);
    const live = new Map<string, number>();
    for (const c of roundRobinOrder(contenders, round)) {
      const id = `${c.id}-idle-${round}`;
      const launched = await host.launch(id, c.node, [provider], contenderEnv(c));
      await host.configure(id);
      live.set(c.id, launched.pid);
    }
    await sleep(settleMs);
    for (const [id, pid] of live) {
      const kb = treeRssKb(pid);
      if (kb === 0) throw new Error(`${id}: no RSS readable for pid ${pid} (is /proc mounted?)`);
      idle.set(id, [...(idle.get(id) ?? []), kb]);
    }
    for (const id of live.keys()) await host.kill(`${id}-idle-${round}`);
  }
  return idle;
}

/** The rows of one mode: Node 20's values, then each other line against them. */
function modeFigures(
  supervised: boolean,
  versions: ReadonlyMap<number, string>,
  schema: ReadonlyMap<string, number[]>,
  idle: ReadonlyMap<string, number[]>,
): Figure[] {
  const mode = supervised ? "supervisor on" : "supervisor off";
  const key = (major: number) => `${major}${supervised ? "" : "-unsupervised"}`;
  const [reference, ...others] = benchNodeMajors;
  const refVersion = versions.get(reference) as string;
  const refSchema = median(schema.get(key(reference)) ?? []);
  const refIdle = median(idle.get(key(reference)) ?? []);
  const figures: Figure[] = [
    absolute(`Node ${refVersion} (${mode}): spawn → GetSchema reply`, formatMs(refSchema), undefined, "the reference"),
    absolute(`Node ${refVersion} (${mode}): idle RSS after Configure`, formatKb(refIdle), undefined, "the reference"),
  ];
  for (const major of others) {
    const version = versions.get(major) as string;
    const ms = median(schema.get(key(major)) ?? []);
    const kb = median(idle.get(key(major)) ?? []);
    const marker = version === embeddedNodeVersion ? "; release's default" : "";
    const against = `Node ${refVersion}`;
    figures.push(
      compared(
        `Node ${version} (${mode}): spawn → GetSchema reply`,
        ms,
        formatMs,
        { label: against, value: refSchema },
        undefined,
        marker.slice(2) || undefined,
      ),
      compared(
        `Node ${version} (${mode}): idle RSS after Configure`,
        kb,
        formatKb,
        { label: against, value: refIdle },
        undefined,
        `${kb >= refIdle ? "+" : ""}${((kb - refIdle) / 1024).toFixed(1)} MB${marker}`,
      ),
    );
  }
  return figures;
}

/** Each line's node binary size (what a single executable weighs, the program adding ~1 MiB) against Node 20's. */
function sizeFigures(contenders: readonly LineContender[]): Figure[] {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const sizes = new Map(contenders.map((c) => [c.version, statSync(c.node).size]));
  const [reference, ...others] = [...sizes.keys()];
  const refBytes = sizes.get(reference as string) as number;
  return [
    absolute(
      `Node ${reference}: node binary size`,
      mib(refBytes),
      undefined,
      "the reference; a single executable is this plus its program",
    ),
    ...others.map((version) =>
      compared(
        `Node ${version}: node binary size`,
        sizes.get(version) as number,
        mib,
        { label: `Node ${reference}`, value: refBytes },
        undefined,
        version === embeddedNodeVersion ? "release's default" : undefined,
      ),
    ),
  ];
}

/** The suite. */
export const nodeLinesSuite: Suite = {
  id: "node-lines",
  title: "Start-up and idle RSS per Node line",
  async run(context: SuiteContext): Promise<SuiteReport> {
    const runs = context.runs ?? (context.quick ? 3 : 20);
    const memoryRounds = context.quick ? 1 : 5;
    const settleMs = context.quick ? 500 : 2000;
    // A smoke run measures what the kernel gets (supervisor on) only.
    const modes = context.quick ? [true] : [true, false];
    const go = buildBenchGo();
    if ("skip" in go) throw new Error(`the go-plugin host cannot be built: ${go.skip}`);
    const { contenders, versions, nodePackage } = await lineContenders(context, modes);
    const ws = createWorkspace("node-lines");
    const provider = path.join(ws.root, "node-lines", "provider.mjs");
    mkdirSync(path.dirname(provider), { recursive: true });
    context.log("bundling bench/fixtures/kernel-bench-provider.ts (harness-tool bundle)");
    await bundleCommand(path.join(repoRoot, "bench/fixtures/kernel-bench-provider.ts"), {
      outfile: provider,
      external: [],
      out: silent,
    });
    const host = new KernelHost(go.host);
    let schema: Map<string, number[]>;
    let idle: Map<string, number[]>;
    try {
      schema = await measureStartUp(host, contenders, provider, runs, context);
      idle = await measureIdle(host, contenders, provider, memoryRounds, settleMs, context);
    } finally {
      await host.close();
    }
    return {
      id: this.id,
      title: this.title,
      method: [
        `The newest ${nodePackage} of each line ${benchNodeMajors.join(", ")} from the npm registry (${[...versions.values()].join(", ")}; the binaries \`release\` embeds), each running the same bundle of bench/fixtures/kernel-bench-provider.ts (\`harness-tool bundle\`), with the supervisor on (what the kernel gets)${modes.length > 1 ? " and off" : "; a quick run leaves the supervisor-off rows out"}.`,
        `The go-plugin ${benchGoPluginVersion} host (bench/go/host) launches each as the kernel does: spawn → GetSchema reply, median of ${runs} launches per configuration, interleaved round by round (the order rotates), after one uncounted warm-up round.`,
        `Idle RSS: all configurations live at once, Configure'd, idle ${settleMs} ms, VmRSS summed over each launched process tree; median of ${memoryRounds} rounds.`,
        "Sizes: each line's node binary, which a single executable is (the program adds about 1 MiB; the release suite measures one).",
        `Ratios against Node ${benchNodeMajors[0]} in the same run (below 1 is faster or smaller). A line that cannot be fetched or does not start fails the suite.`,
      ],
      figures: [
        ...modes.flatMap((supervised) => modeFigures(supervised, versions, schema, idle)),
        ...sizeFigures(contenders),
      ],
      notes: [],
    };
  },
};
