/**
 * `harness-tool bundle <entry> [--outfile file]`: one executable for the kernel to launch.
 * A provider started from tsc output loads a few hundred small modules (the runtime, protobuf-es,
 * grpc-js, the generated code) before its handshake; bundled into one ES module it starts as fast
 * as a bare grpc-js server (bench/RESULTS.md, start-up).
 *
 * Three files come out: the bundle (`provider.bundle.mjs`), its source map, and the executable the
 * kernel runs (`provider.mjs`, a few lines with a shebang) that turns on source maps and imports
 * the bundle. Node applies source maps only to modules loaded after they are turned on, so a
 * bundle cannot turn them on for itself, and a shebang with `--enable-source-maps` needs
 * `env -S`, which not every system's env has. With the map, stack traces (the kernel's log: an
 * `unknown` error's stack goes to its `[ERROR]` line's `stack` field, never into the error the
 * model sees) name the source files and lines instead of the bundle's.
 *
 * When the provider serves through harness-tool, the executable decides supervision first, from
 * the environment, with harness-tool's own supervisor inlined (cli/release/early-supervision.ts):
 * a supervisor never loads the bundle (docs/runtime.md#the-supervisor).
 *
 * What cannot be inlined (native addons, code that finds its own files) is kept out of the bundle
 * and installed into `node_modules` beside it (cli/release/unbundled-packages.ts), one line each
 * saying why, so the bundle's folder runs wherever it is copied.
 */
import { chmodSync, copyFileSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defineCommand } from "./command-definition.js";
import { isRuntimeCheckout, runtimeRootFrom, sourceCondition } from "../provider/runtime-sources.js";
import {
  bundleEarlySupervision,
  installedSupervisorProgram,
  polyglotHead,
  type SupervisorProgram,
  supervisorSpecifier,
} from "../release/early-supervision.js";
import {
  buildKeepingOut,
  installBeside,
  UnbundledPackages,
  UnbundledPackageError,
} from "../release/unbundled-packages.js";
import { nativeBase64Plugin } from "../release/native-base64.js";
import { missingFileText } from "../terminal/fault-wording.js";
import { UsageError } from "../terminal/usage-error.js";

// esbuild's ES module output of CommonJS dependencies (grpc-js) needs a `require` in scope.
const banner = [
  "import { createRequire as __harnessToolCreateRequire } from 'node:module';",
  "const require = __harnessToolCreateRequire(import.meta.url);",
].join("\n");

/** The executable's first lines: `#!` and node, or the sh/JS lines that start the supervisor program. */
function launcherHead(bundleFile: string, supervised: boolean, shellHead?: readonly string[]): string[] {
  return [
    ...(shellHead ?? ["#!/usr/bin/env node"]),
    "// Built by `harness-tool bundle`: the provider's executable. Source maps go on before the",
    `// bundle loads, so stack traces name the source files (${bundleFile}.map).`,
    ...(supervised
      ? [
          "// It first decides, from the environment alone, whether this process is the provider's",
          "// supervisor (harness-tool/supervisor, inlined below); the supervisor never loads the bundle.",
        ]
      : []),
  ];
}

/**
 * Turn on V8's module compile cache and source maps, then load the bundle beside it. The cache is
 * Node's own (module.enableCompileCache, Node 22.1 on): compiled code in Node's default directory,
 * `<os tmpdir>/node-compile-cache`, or NODE_COMPILE_CACHE's; NODE_DISABLE_COMPILE_CACHE=1 turns it
 * off. A directory that cannot be written leaves it off without a word. Warm, it saves about a
 * quarter of spawn → GetSchema on Node 24 and 26 (bench/RESULTS.md, "Fast start").
 */
function loadBundle(bundleFile: string): string[] {
  return [
    "nodeModule.enableCompileCache?.();",
    "process.setSourceMapsEnabled(true);",
    `await import(${JSON.stringify(`./${bundleFile}`)});`,
  ];
}

/** The import `loadBundle`'s first line needs. */
const nodeModuleImport = 'import * as nodeModule from "node:module";';

/**
 * The executable's text: supervision decided first when the provider serves through harness-tool,
 * and with `program` (then `carried`), the supervisor program started by sh before any Node.
 */
async function launcherText(
  entry: string,
  bundleFile: string,
  providerInputs: readonly string[],
  conditions: readonly string[],
  program: SupervisorProgram | undefined,
): Promise<{ text: string; carried: boolean }> {
  const supervised = await bundleEarlySupervision({
    entry,
    providerInputs,
    // esbuild's metafile names the inputs relative to the working directory it built in.
    providerRoot: process.cwd(),
    conditions,
    format: "esm",
    source: [
      nodeModuleImport,
      `import { superviseBeforeLoading } from ${JSON.stringify(supervisorSpecifier)};`,
      "if (!superviseBeforeLoading()) {",
      ...loadBundle(bundleFile),
      "}",
    ].join("\n"),
    external: [`./${bundleFile}`],
  });
  if (supervised === undefined)
    return {
      text: [...launcherHead(bundleFile, false), nodeModuleImport, ...loadBundle(bundleFile), ""].join("\n"),
      carried: false,
    };
  const { kernelHandshake } = await import("harness-tool/host");
  const shellHead =
    program === undefined
      ? undefined
      : polyglotHead(program, { key: kernelHandshake.cookieKey, value: kernelHandshake.cookieValue });
  return {
    text: [...launcherHead(bundleFile, true, shellHead), supervised].join("\n"),
    carried: shellHead !== undefined,
  };
}

/**
 * The supervisor program's copy beside the executable: written when it carries it, else removed
 * (a copy left by an earlier bundle would still be found by the runtime).
 */
function placeSupervisorProgram(dir: string, program: SupervisorProgram | undefined, out: NodeJS.WritableStream): void {
  for (const name of readdirSync(dir))
    if (/^harness-tool-supervisor-[a-z]+-[a-z0-9]+$/.test(name)) rmSync(path.join(dir, name), { force: true });
  if (program === undefined) return;
  const copy = path.join(dir, program.fileName);
  copyFileSync(program.binary, copy);
  chmodSync(copy, 0o755);
  const mib = (statSync(copy).size / 1024 / 1024).toFixed(1);
  out.write(
    `copied the supervisor program for ${program.platform} (${mib} MiB) to ${path.relative(process.cwd(), copy)}: the executable starts it before any Node\n`,
  );
}

/** `dist/provider.mjs` -> `dist/provider.bundle.mjs`. */
export function bundleFileFor(outfile: string): string {
  const ext = path.extname(outfile);
  return `${outfile.slice(0, outfile.length - ext.length)}.bundle.mjs`;
}

/** Installs the kept packages beside the bundle and says, one line each, which and why. */
function reportKept(unbundled: UnbundledPackages, dir: string, out: NodeJS.WritableStream): void {
  const kept = unbundled.kept;
  const installed = installBeside(dir, kept);
  const modules = path.relative(process.cwd(), path.join(dir, "node_modules")) || "node_modules";
  for (const pkg of kept) out.write(`kept ${pkg.name}@${pkg.version} out of the bundle: ${pkg.reason}\n`);
  if (installed.packages > 0) {
    out.write(
      `installed ${installed.packages} packages (${(installed.bytes / 1024 / 1024).toFixed(1)} MiB) into ${modules}: copy ${path.relative(process.cwd(), dir) || "."}/ whole\n`,
    );
  }
}

/** Options of the bundle command. */
export interface BundleOptions {
  readonly outfile: string;
  /** Keep these packages out of the bundle (resolved from node_modules at run time). */
  readonly external: readonly string[];
  readonly out: NodeJS.WritableStream;
}

/** Bundles `entry` into `options.outfile` (and the files beside it); resolves to the exit code. */
export async function bundleCommand(entry: string, options: BundleOptions): Promise<number> {
  // esbuild would say `Could not resolve "src/main.ts"`: a missing file is worded as everywhere else.
  if (!existsSync(entry)) throw new UsageError(missingFileText(entry));
  const { build } = await import("esbuild");
  const bundleFile = bundleFileFor(options.outfile);
  const conditions = isRuntimeCheckout(runtimeRootFrom(path.dirname(path.resolve(entry))))
    ? [sourceCondition, "module"]
    : ["module"];
  const unbundled = new UnbundledPackages(path.dirname(path.resolve(entry)), options.external);
  try {
    const bundleOnce = () =>
      build({
        entryPoints: [entry],
        outfile: bundleFile,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node22",
        banner: { js: banner },
        external: [...options.external],
        // Native addons and what else cannot be inlined stay out (cli/release/unbundled-packages.ts).
        // protobuf's base64 decoder on Node's, so no TurboFan compile pages in at start (native-base64.ts).
        plugins: [nativeBase64Plugin(), unbundled.plugin()],
        // Packages' ES module builds where their exports offer one (@opentelemetry/api): esbuild can
        // drop what a provider never uses (the API's metrics half), about 40 KiB.
        // An entry inside this repository (an example) finds the runtime's workspace, which has no
        // dist/ until `npm run build`: its sources are bundled instead (cli/provider/runtime-sources.ts).
        conditions,
        logLevel: "silent",
        metafile: true,
        // Whitespace and syntax minified, identifiers kept: a third smaller (bench/RESULTS.md,
        // packaging), and the names in stack traces stay the sources' even without the source map.
        minifyWhitespace: true,
        minifySyntax: true,
        // Keep names: the stack traces the kernel's log records for a provider's `unknown` errors stay readable.
        keepNames: true,
        // Mappings only: stack traces need no source text, and the map's paths lead to the sources.
        sourcemap: "linked",
        sourcesContent: false,
      });
    const result = await buildKeepingOut(unbundled, bundleOnce);
    reportKept(unbundled, path.dirname(options.outfile), options.out);
    const launcher = await launcherText(
      entry,
      path.basename(bundleFile),
      Object.keys(result.metafile.inputs),
      conditions,
      installedSupervisorProgram(entry),
    );
    writeFileSync(options.outfile, launcher.text);
    chmodSync(options.outfile, 0o755);
    placeSupervisorProgram(
      path.dirname(path.resolve(options.outfile)),
      launcher.carried ? installedSupervisorProgram(entry) : undefined,
      options.out,
    );
    const outputs = Object.entries(result.metafile.outputs);
    const size = (suffix: string) =>
      outputs.filter(([f]) => f.endsWith(suffix)).reduce((sum, [, o]) => sum + o.bytes, 0);
    const inputs = Object.keys(result.metafile.inputs).length;
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
    const shown = (file: string) => path.relative(process.cwd(), file);
    options.out.write(
      `bundled ${inputs} modules into ${shown(bundleFile)} (${kib(size(".mjs"))}, source map ${kib(size(".map"))}); ${shown(options.outfile)} runs it\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof UnbundledPackageError) throw new UsageError(e.message);
    const errors = (
      e as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }
    ).errors;
    if (errors && errors.length > 0) {
      throw new UsageError(
        errors
          .map((x) => (x.location ? `${x.location.file}:${x.location.line}:${x.location.column}: ${x.text}` : x.text))
          .join("\n"),
      );
    }
    throw e;
  }
}

/** The command line of `harness-tool bundle`. */
export const bundleCommandDefinition = defineCommand({
  name: "bundle",
  summary: "bundle a provider into one ES module and the executable the kernel launches",
  description:
    "Bundles the entry (TypeScript sources or tsc's output) and everything it imports with esbuild into one ES module, <outfile without its extension>.bundle.mjs, with its source map beside it, and writes --outfile as the executable the kernel launches: it turns source maps on and loads the bundle, so stack traces name the source files. A bundled provider starts about twice as fast as separate modules. Packages that cannot be inlined are kept out automatically, one line each saying why: native addons (binding.gyp, .node files, prebuilds/, the bindings, node-gyp-build, prebuild-install or node-pre-gyp loaders), packages that load per-platform packages, and CommonJS code reading __dirname/__filename or calling require with a computed name; they and their dependencies are installed into node_modules beside the bundle, so its folder runs wherever it is copied. An addon with no build fails the bundle, naming the package and the fix. With this platform's supervisor package installed (an optional dependency of harness-tool), its program is copied beside --outfile as harness-tool-supervisor-<os>-<cpu>, and the executable, run by a host, starts it through /bin/sh before any Node.",
  positionals: [{ name: "entry" }],
  flags: {
    outfile: { type: "string", value: "file", default: "dist/provider.mjs", description: "where to write the bundle" },
    external: {
      type: "string",
      value: "package",
      multiple: true,
      description:
        "leave this package out of the bundle without installing it beside the bundle (resolved from node_modules at run time); what must stay out is found without it",
    },
  },
  examples: [
    "harness-tool bundle src/main.ts",
    "harness-tool bundle src/main.ts --outfile dist/provider.mjs --external sqlite3",
  ],
  run: ({ values, positionals }, { out }) =>
    bundleCommand(positionals[0] as string, { outfile: values.outfile, external: values.external, out }),
});
