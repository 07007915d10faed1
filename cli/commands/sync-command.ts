/** `harness-tool sync <handlers.ts>`: adds missing handlers, reports stale ones. */
import { existsSync } from "node:fs";
import path from "node:path";
import { defineCommand } from "./command-definition.js";
import { missingFileText } from "../terminal/fault-wording.js";
import { UsageError } from "../terminal/usage-error.js";

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

/**
 * Runs the command over `files`; resolves to the exit code: 0 when every handlers object is
 * complete (after adding what was missing), 1 when handlers of removed tools remain (the compiler
 * rejects them until they go), 2 when a file holds no handlers object at all.
 */
export async function syncCommand(files: readonly string[], options: { dryRun: boolean; out: NodeJS.WritableStream }): Promise<number> {
  // ts-morph is a whole TypeScript compiler: loaded only when sync runs.
  const { syncHandlers } = await import("../sync/sync-handlers.js");
  if (files.length === 0) throw new UsageError("name the handlers file(s) to sync, e.g. harness-tool sync src/handlers.ts");
  let staleFound = false;
  for (const file of files) {
    if (!existsSync(file)) throw new UsageError(missingFileText(file));
    const tsconfig = nearestTsconfig(file);
    const report = syncHandlers(file, { dryRun: options.dryRun, ...(tsconfig ? { tsConfigFilePath: tsconfig } : {}) });
    if (report.objects.length === 0) {
      throw new UsageError(
        `${file} has no object typed as a generated ...Handlers interface (const handlers: NotesHandlers = {...}, or {...} satisfies NotesHandlers): name the file that holds it, e.g. src/handlers.ts`,
      );
    }
    for (const o of report.objects) {
      const verb = options.dryRun ? "would add" : "added";
      const state = o.added.length > 0 ? `${verb} ${o.added.join(", ")}` : o.stale.length > 0 ? "nothing to add" : "up to date";
      options.out.write(`${file}: ${o.interfaceName}: ${state}\n`);
      for (const s of o.stale) {
        options.out.write(`${file}: ${o.interfaceName}: ${s} has no tool any more; the build fails until you remove it (sync never deletes code)\n`);
      }
      if (o.stale.length > 0) staleFound = true;
    }
  }
  return staleFound ? 1 : 0;
}

/** The command line of `harness-tool sync`. */
export const syncCommandDefinition = defineCommand({
  name: "sync",
  summary: "add the handlers new tools need to a handlers file; report stale ones",
  description:
    'After a tool is added to the proto and the code regenerated, adds its handler to the object typed as the generated ...Handlers interface, with the exact typed signature and a body that throws "not implemented", and the types it names to the file\'s imports. Handlers whose tool is gone are reported, never deleted (exit 1 until they are removed: the compiler rejects them). Running it twice changes nothing.',
  positionals: [{ name: "handlers.ts", variadic: true }],
  flags: { "dry-run": { type: "boolean", description: "print what would change without writing" } },
  examples: ["harness-tool sync src/handlers.ts", "harness-tool sync src/handlers.ts --dry-run"],
  run: ({ values, positionals }, { out }) => syncCommand(positionals, { dryRun: values["dry-run"], out }),
});
