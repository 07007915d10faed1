/**
 * Whether a `harness-tool` runtime is a source checkout (this repository's runtime/ workspace)
 * rather than an installed package. A checkout has its TypeScript sources and, until someone runs
 * `npm run build`, no dist/; an installed package has dist/ and no sources. Commands that start or
 * bundle a provider resolve `harness-tool` through the `harness-tool-source` export condition when
 * the runtime they find is a checkout, so `npx harness-tool bundle examples/exec/src/main.ts` and
 * `inspect examples/exec` work on a fresh clone without a build, and a stale dist/ never shadows the
 * sources the bin itself runs.
 */
import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The export condition under which this repository's workspaces resolve to their sources. */
export const sourceCondition = "harness-tool-source";

/** The folder of the `harness-tool` package resolved from `fromDir`, or undefined if none is found. */
export function runtimeRootFrom(fromDir: string): string | undefined {
  try {
    const manifest = createRequire(path.join(path.resolve(fromDir), "noop.js")).resolve("harness-tool/package.json");
    return path.dirname(realpathSync(manifest));
  } catch {
    return undefined;
  }
}

/** True when `runtimeRoot` holds the runtime's sources and they, not dist/, are what should run. */
export function isRuntimeCheckout(runtimeRoot: string | undefined): boolean {
  if (runtimeRoot === undefined || !existsSync(path.join(runtimeRoot, "index.ts"))) return false;
  return existsSync(path.join(runtimeRoot, "../.git")) || !existsSync(path.join(runtimeRoot, "dist/index.js"));
}
