/** `harness-tool sync <handlers.ts>`: adds missing handlers, reports stale ones. */
import { existsSync } from "node:fs";
import path from "node:path";
import { defineCommand } from "../command-definition.js";
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
export async function syncCommand(files: readonly string[], options: { dryRun: boolean; out: NodeJS.WritableStream }): Promise<number> {
  // ts-morph is a whole TypeScript compiler: loaded only when sync runs.
  const { syncHandlers } = await import("../sync/sync-handlers.js");
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

/** The command line of `harness-tool sync`. */
export const syncCommandDefinition = defineCommand({
  name: "sync",
  summary: "add the handlers new tools need to a handlers file; report stale ones",
  description:
    "After a tool is added to the proto and the code regenerated, adds its handler to the object typed as the generated ...Handlers interface, with the exact typed signature and a body that throws \"not implemented\". Handlers whose tool is gone are reported, never deleted. Running it twice changes nothing.",
  positionals: [{ name: "handlers.ts", variadic: true }],
  flags: { "dry-run": { type: "boolean", description: "print what would change without writing" } },
  examples: ["harness-tool sync src/handlers.ts", "harness-tool sync src/handlers.ts --dry-run"],
  run: ({ values, positionals }, { out }) => syncCommand(positionals, { dryRun: values["dry-run"], out }),
});
