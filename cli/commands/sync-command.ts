/** `harness-tool sync <handlers.ts>`: adds missing handlers, reports stale ones. */
import { existsSync } from "node:fs";
import path from "node:path";
import { defineCommand } from "./command-definition.js";
import { findGeneratedLayout, generatedStaleness, recordGenerated, stampFileName } from "../sync/generated-stamp.js";
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

/** Options of syncCommand. */
export interface SyncOptions {
  readonly dryRun: boolean;
  /** Record which protos the generated code was made from (after buf generate), and do nothing else. */
  readonly recordGenerated?: boolean | undefined;
  /** Check that the generated code was made from the protos as they are, and do nothing else. */
  readonly checkGenerated?: boolean | undefined;
  /** Where the two above look for buf.gen.yaml (default: the working directory). */
  readonly cwd?: string | undefined;
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
}

/** `--record-generated` / `--check-generated` in the repository of the working directory. */
function generatedCommand(files: readonly string[], options: SyncOptions): number {
  if (files.length > 0)
    throw new UsageError(
      "--record-generated and --check-generated take no handlers file: run them in the provider's folder",
    );
  if (options.recordGenerated && options.checkGenerated)
    throw new UsageError("--record-generated and --check-generated: choose one");
  const cwd = options.cwd ?? process.cwd();
  const layout = findGeneratedLayout(cwd);
  if (layout === undefined)
    throw new UsageError(
      "no buf.gen.yaml here or above: run it in the provider's folder (the one npm run generate runs in)",
    );
  if (options.recordGenerated) {
    const out = path.join(layout.root, layout.out);
    if (!existsSync(out))
      throw new UsageError(`${layout.out}/ does not exist: run buf generate first (npm run generate runs both)`);
    const file = recordGenerated(layout);
    options.out.write(`recorded the protos ${path.relative(cwd, file)} was generated from\n`);
    return 0;
  }
  const stale = generatedStaleness(layout);
  if (stale === undefined) return 0;
  options.err.write(`harness-tool sync: ${stale}\n`);
  return 1;
}

/**
 * Runs the command over `files`; resolves to the exit code: 0 when every handlers object is
 * complete (after adding what was missing), 1 when handlers of removed tools remain (the compiler
 * rejects them until they go) or the generated code is older than the protos (nothing is added
 * then), 2 when a file holds no handlers object at all.
 */
export async function syncCommand(files: readonly string[], options: SyncOptions): Promise<number> {
  if (options.recordGenerated || options.checkGenerated) return generatedCommand(files, options);
  if (files.length === 0)
    throw new UsageError("name the handlers file(s) to sync, e.g. harness-tool sync src/handlers.ts");
  for (const file of files) if (!existsSync(file)) throw new UsageError(missingFileText(file));
  // Handlers synced against stale generated code would be the old tools' (and "up to date" a lie).
  // Code generated without a record (plain buf generate, an older scaffold) is taken as it is.
  for (const layout of new Set(files.map((file) => findGeneratedLayout(path.dirname(file))))) {
    if (layout === undefined || !existsSync(path.join(layout.root, layout.out, stampFileName))) continue;
    const stale = generatedStaleness(layout);
    if (stale !== undefined) {
      options.err.write(`harness-tool sync: ${stale}, then sync again\n`);
      return 1;
    }
  }
  // ts-morph is a whole TypeScript compiler: loaded only when sync runs.
  const { syncHandlers } = await import("../sync/sync-handlers.js");
  let staleFound = false;
  for (const file of files) {
    const tsconfig = nearestTsconfig(file);
    const report = syncHandlers(file, { dryRun: options.dryRun, ...(tsconfig ? { tsConfigFilePath: tsconfig } : {}) });
    if (report.objects.length === 0) {
      throw new UsageError(
        `${file} has no object typed as a generated ...Handlers interface (const handlers: NotesHandlers = {...}, or {...} satisfies NotesHandlers): name the file that holds it, e.g. src/handlers.ts`,
      );
    }
    for (const o of report.objects) {
      const verb = options.dryRun ? "would add" : "added";
      const state =
        o.added.length > 0 ? `${verb} ${o.added.join(", ")}` : o.stale.length > 0 ? "nothing to add" : "up to date";
      options.out.write(`${file}: ${o.interfaceName}: ${state}\n`);
      for (const s of o.stale) {
        options.out.write(
          `${file}: ${o.interfaceName}: ${s} has no tool any more; the build fails until you remove it (sync never deletes code)\n`,
        );
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
    "After a tool is added to the proto and the code regenerated, adds its handler to the object typed as the generated ...Handlers interface, with the exact typed signature and a body that throws \"not implemented\", and the types it names to the file's imports. Handlers whose tool is gone are reported, never deleted (exit 1 until they are removed: the compiler rejects them). Running it twice changes nothing. When the generated code is older than the protos (the SHA-256 of each .proto under buf.gen.yaml's input, as npm run generate recorded them in generated-from.json), it adds nothing and says to run npm run generate (exit 1).",
  positionals: [{ name: "handlers.ts", variadic: true, optional: true }],
  flags: {
    "dry-run": { type: "boolean", description: "print what would change without writing" },
    "record-generated": {
      type: "boolean",
      description:
        "after buf generate: record the protos the generated code was made from (the scaffold's npm run generate)",
    },
    "check-generated": {
      type: "boolean",
      description:
        "exit 1 naming npm run generate when the generated code is older than the protos (the scaffold's prebuild)",
    },
  },
  examples: [
    "harness-tool sync src/handlers.ts",
    "harness-tool sync src/handlers.ts --dry-run",
    "harness-tool sync --record-generated",
    "harness-tool sync --check-generated",
  ],
  run: ({ values, positionals }, { out, err }) =>
    syncCommand(positionals, {
      dryRun: values["dry-run"],
      recordGenerated: values["record-generated"],
      checkGenerated: values["check-generated"],
      out,
      err,
    }),
});
