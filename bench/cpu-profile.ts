/**
 * Reading a V8 .cpuprofile (node --cpu-prof): self time per function, for the notes of a missed
 * target. The plugin is profiled in one extra, untimed run.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
}

/** One function's share of the samples. */
export interface HotFunction {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

/**
 * The functions with the most self time across the .cpuprofile files in `dir`, highest first;
 * shares are of the busy time (the "(idle)" node is left out).
 */
export function hottestFunctions(dir: string, limit: number): HotFunction[] {
  const self = new Map<string, number>();
  let totalHits = 0;
  let totalMs = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    totalMs += (profile.endTime - profile.startTime) / 1000;
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (hits === 0) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      if (functionName === "(idle)") {
        totalMs -= hits * msPerSample(profile);
        continue;
      }
      const where = url
        ? `${url
            .replace(/^file:\/\//, "")
            .replace(/^.*\/node_modules\//, "")
            .replace(/^.*\/dist\//, "")}:${lineNumber + 1}`
        : "";
      const key = `${functionName || "(anonymous)"}${where ? ` ${where}` : ""}`;
      self.set(key, (self.get(key) ?? 0) + hits);
      totalHits += hits;
    }
  }
  const msPerHit = totalHits === 0 ? 0 : totalMs / totalHits;
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, hits]) => ({ name, selfMs: hits * msPerHit, share: totalHits === 0 ? 0 : hits / totalHits }));
}

/** Where a profiled function lives: its npm package, node's internals, the plugin, or the VM. */
function ownerOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return "node internals (module loading, streams)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1] as string;
  const local = /\/dist\/([^/]+)\//.exec(url) ?? /\/(plugin|runtime|generated)\//.exec(url);
  return local ? `harness-tool ${local[1]}` : url;
}

/** The sampling interval of a profile, in ms. */
function msPerSample(profile: CpuProfile): number {
  const samples = profile.samples?.length ?? 0;
  return samples === 0 ? 0 : (profile.endTime - profile.startTime) / 1000 / samples;
}

/** Self time per owner (package, node internals, GC) across the .cpuprofile files in `dir`. */
export function selfTimeByOwner(dir: string, limit: number): HotFunction[] {
  const self = new Map<string, number>();
  let totalHits = 0;
  let totalMs = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    totalMs += (profile.endTime - profile.startTime) / 1000;
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (hits === 0) continue;
      if (node.callFrame.functionName === "(idle)") {
        totalMs -= hits * msPerSample(profile);
        continue;
      }
      const owner = ownerOf(node);
      self.set(owner, (self.get(owner) ?? 0) + hits);
      totalHits += hits;
    }
  }
  const msPerHit = totalHits === 0 ? 0 : totalMs / totalHits;
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, hits]) => ({ name, selfMs: hits * msPerHit, share: totalHits === 0 ? 0 : hits / totalHits }));
}
