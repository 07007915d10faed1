/**
 * Builds the bench provider the telemetry suite launches, as production runs it (compiled JS, never
 * tsx): fixtures/bench-provider.ts bundled into one .mjs with esbuild (every dependency inlined).
 * The kernel-side suites build theirs in kernel-contenders.ts, bench/supervisor-cost.ts with
 * `harness-tool bundle`.
 */
import path from "node:path";
import type { BenchWorkspace } from "./bench-workspace.js";
import { repoBin, repoRoot } from "./bench-workspace.js";
import { runTimed } from "./measure.js";

/** A built entry point, or why it could not be built. */
export type BuiltEntry = { readonly ok: true; readonly file: string } | { readonly ok: false; readonly why: string };

// esbuild's ESM output of CommonJS dependencies (grpc-js) needs a `require`.
const requireBanner =
  "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);";

async function esbuild(entry: string, outfile: string, extra: readonly string[]): Promise<BuiltEntry> {
  const run = await runTimed(
    path.join(repoBin, "esbuild"),
    [
      entry,
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--target=node22",
      `--outfile=${outfile}`,
      `--banner:js=${requireBanner}`,
      "--log-level=error",
      ...extra,
    ],
    { cwd: repoRoot, timeoutMs: 60_000, measureRss: false },
  );
  return run.status === 0
    ? { ok: true, file: outfile }
    : { ok: false, why: `esbuild ${path.basename(entry)} failed: ${run.stderr.trim().slice(0, 500)}` };
}

/** The bench provider bundled into one file (sources resolved through the harness-tool-source condition). */
export function bundleProvider(ws: BenchWorkspace): Promise<BuiltEntry> {
  return esbuild(
    path.join(repoRoot, "bench/fixtures/bench-provider.ts"),
    path.join(ws.root, "bench-provider.bundle.mjs"),
    ["--conditions=harness-tool-source"],
  );
}
