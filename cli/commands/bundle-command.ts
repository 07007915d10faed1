/**
 * `harness-tool bundle <entry> [--outfile file]`: one executable file for the kernel to launch.
 * A provider started from tsc output loads a few hundred small modules (the runtime, protobuf-es,
 * grpc-js, the generated code) before its handshake; bundled into one ES module it starts as fast
 * as a bare grpc-js server (bench/RESULTS.md, start-up). The output starts with a shebang and is
 * executable, so the kernel runs it directly.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defineCommand } from "../command-definition.js";
import { UsageError } from "../usage-error.js";

// esbuild's ES module output of CommonJS dependencies (grpc-js) needs a `require` in scope.
const banner = [
  "import { createRequire as __harnessToolCreateRequire } from 'node:module';",
  "const require = __harnessToolCreateRequire(import.meta.url);",
].join("\n");

/** Options of the bundle command. */
export interface BundleOptions {
  readonly outfile: string;
  /** Keep these packages out of the bundle (resolved from node_modules at run time). */
  readonly external: readonly string[];
  readonly out: NodeJS.WritableStream;
}

/** Bundles `entry` into `options.outfile`; resolves to the exit code. */
export async function bundleCommand(entry: string, options: BundleOptions): Promise<number> {
  const { build } = await import("esbuild");
  try {
    const result = await build({
      entryPoints: [entry],
      outfile: options.outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      banner: { js: banner },
      external: [...options.external],
      logLevel: "silent",
      metafile: true,
      // Keep names: stack traces in a provider's `unknown` error details stay readable.
      keepNames: true,
    });
    // esbuild keeps an entry's own hashbang on the first line; give one to an entry without.
    const text = readFileSync(options.outfile, "utf8");
    if (!text.startsWith("#!")) writeFileSync(options.outfile, `#!/usr/bin/env node\n${text}`);
    chmodSync(options.outfile, 0o755);
    const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
    const inputs = Object.keys(result.metafile.inputs).length;
    options.out.write(`bundled ${inputs} modules into ${path.relative(process.cwd(), options.outfile)} (${(bytes / 1024).toFixed(0)} KiB)\n`);
    return 0;
  } catch (e) {
    const errors = (e as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors;
    if (errors && errors.length > 0) {
      throw new UsageError(errors.map((x) => (x.location ? `${x.location.file}:${x.location.line}:${x.location.column}: ${x.text}` : x.text)).join("\n"));
    }
    throw e;
  }
}

/** The command line of `harness-tool bundle`. */
export const bundleCommandDefinition = defineCommand({
  name: "bundle",
  summary: "bundle a provider into one executable ES module the kernel launches",
  description:
    "Bundles the entry (TypeScript sources or tsc's output) and everything it imports with esbuild into one file that starts with a shebang and is executable, with a source map beside it so stack traces name the source files. A bundled provider starts about twice as fast as separate modules.",
  positionals: [{ name: "entry" }],
  flags: {
    outfile: { type: "string", value: "file", default: "dist/provider.mjs", description: "where to write the bundle" },
    external: { type: "string", value: "package", multiple: true, description: "leave this package out of the bundle (resolved from node_modules at run time)" },
  },
  examples: ["harness-tool bundle src/main.ts", "harness-tool bundle src/main.ts --outfile dist/provider.mjs --external sqlite3"],
  run: ({ values, positionals }, { out }) => bundleCommand(positionals[0] as string, { outfile: values.outfile, external: values.external, out }),
});
