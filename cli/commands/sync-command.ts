/** `harness-tool sync <handlers.ts>`: adds missing handlers, reports stale ones. */
import { existsSync } from "node:fs";
import path from "node:path";
import { syncHandlers } from "../sync/sync-handlers.js";
import { UsageError } from "../usage-error.js";

/** Finds the tsconfig.json nearest to `file`. */
function nearestTsconfig(file: string): string | undefined {
  let dir = path.dirname(path.resolve(file));
  for (;;) {
    const candidate = path.join(dir, "tsconfig.json");
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Runs the command over `files`; resolves to the exit code. */
export function syncCommand(files: readonly string[], options: { dryRun: boolean; out: NodeJS.WritableStream }): number {
  if (files.length === 0) throw new UsageError("name the handlers file(s) to sync, e.g. harness-tool sync src/handlers.ts");
  for (const file of files) {
    if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
    const tsconfig = nearestTsconfig(file);
    const report = syncHandlers(file, { dryRun: options.dryRun, ...(tsconfig ? { tsConfigFilePath: tsconfig } : {}) });
    if (report.objects.length === 0) options.out.write(`${file}: no object typed as a ...Handlers interface was found\n`);
    for (const o of report.objects) {
      const verb = options.dryRun ? "would add" : "added";
      options.out.write(`${file}: ${o.interfaceName}: ${o.added.length > 0 ? `${verb} ${o.added.join(", ")}` : "up to date"}\n`);
      for (const s of o.stale) options.out.write(`${file}: ${o.interfaceName}: ${s} has no tool any more (left in place; remove it when you are ready)\n`);
    }
  }
  return 0;
}
