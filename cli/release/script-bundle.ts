/**
 * A provider's whole program as one classic (CommonJS) script, for Node's single-executable
 * applications (a single executable runs one CommonJS script as its main) and for the single-file
 * `.mjs` release. A provider's entry is an ES module whose last statement is a top-level
 * `await serve(…)`, which no CommonJS output can hold as it is, so the build goes in two steps:
 *
 * 1. esbuild bundles the entry as an ES module in which nothing is imported any more: Node's
 *    built-in modules are read through `require` (a CommonJS shim per built-in), `import.meta.url`
 *    becomes the script's own file URL. What is left of ES-module syntax is the top-level `await`.
 * 2. The body is wrapped in one strict async function that runs at once. That is the ES module's
 *    own semantics: strict code, top-level declarations private to the program, statements in
 *    order, the awaits suspending the rest; a failure is reported and exits 1, as Node does for a
 *    rejected top-level await.
 *
 * The script is checked to compile as a classic script; an entry that exports names is refused
 * (nothing could import them). The source map is inline (its line numbers shifted by the wrapper's
 * first line), so one file carries the code and what maps its stack traces to the sources.
 */
import { existsSync } from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import { Script } from "node:vm";
import type { Plugin } from "esbuild";
import { isRuntimeCheckout, runtimeRootFrom, sourceCondition } from "../provider/runtime-sources.js";
import { bundleEarlySupervision, supervisorSpecifier } from "./early-supervision.js";
import { nativeBase64Plugin } from "./native-base64.js";
import { buildKeepingOut, type KeptPackage, UnbundledPackageError, UnbundledPackages } from "./unbundled-packages.js";

/** The release target the script is built for: the engines floor (Node 22), which the `.mjs` must run on; every embedded Node is that or newer. */
const nodeTarget = "node22";

/** The program as a classic script, with the facts the release reports. */
export interface ScriptBundle {
  /** The classic script, without a source map: a single executable's main script. */
  readonly script: string;
  /** Its source map as the comment that ends a script (`//# sourceMappingURL=data:…`). */
  readonly sourceMapComment: string;
  /** How many modules went in. */
  readonly modules: number;
  /** The entry, and what the build read (esbuild's metafile inputs, relative to `root`) with which export conditions. */
  readonly entry: string;
  readonly inputs: readonly string[];
  /** The provider's root (its package.json's folder): the build's working directory. */
  readonly root: string;
  readonly conditions: readonly string[];
  /** The packages kept out of the script (cli/release/unbundled-packages.ts): it `require`s them. */
  readonly kept: readonly KeptPackage[];
  /** Node's built-in modules it uses, `node:`-prefixed (an executable's Node must have each). */
  readonly builtins: readonly string[];
}

/** Why an entry cannot become one script: said in one line, the command prefixes its name. */
export class ScriptBundleError extends Error {
  override readonly name = "ScriptBundleError";
}

/** The name under which the wrapper passes the script's own file URL to the bundle. */
const fileUrlName = "__harnessToolFileUrl";

/** Node's built-in modules, each read through `require` (a classic script has no `import`); `used` collects them. */
function builtinsThroughRequire(used: Set<string>): Plugin {
  return {
    name: "harness-tool-builtins-through-require",
    setup(build) {
      build.onResolve({ filter: /^(node:)?[a-z0-9_/]+$/ }, (args) => {
        const bare = args.path.startsWith("node:") ? args.path.slice("node:".length) : args.path;
        // `node:sqlite`, `node:sea` and `node:test` exist only with their prefix, and Node 22's
        // builtinModules does not list them: isBuiltin knows them on every line.
        if (!isBuiltin(args.path)) return undefined;
        used.add(`node:${bare}`);
        // A `require` call (the shim's own, or a CommonJS package's) stays one: esbuild's output calls
        // the script's `require` for it.
        if (args.kind === "require-call") return { path: args.path, external: true };
        return { path: `node:${bare}`, namespace: "harness-tool-builtin" };
      });
      build.onLoad({ filter: /.*/, namespace: "harness-tool-builtin" }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
    },
  };
}

/** The first line of the script: a strict async function around the program, started at once. */
const wrapperHead = `(async () => { "use strict"; const ${fileUrlName} = require("node:url").pathToFileURL(__filename).href;`;

/** The last lines: report a failure as Node reports a rejected top-level await, and exit 1. */
const wrapperTail = ["})().catch((error) => {", "  process.exitCode = 1;", "  console.error(error);", "});"].join("\n");

/** esbuild's failure as one line per message, `file:line:col: text`. */
function esbuildMessages(error: unknown): string | undefined {
  const errors = (
    error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }
  ).errors;
  if (!errors || errors.length === 0) return undefined;
  return errors
    .map((x) => (x.location ? `${x.location.file}:${x.location.line}:${x.location.column}: ${x.text}` : x.text))
    .join("\n");
}

/**
 * The provider's root: the nearest folder at or above the entry's that holds a package.json (the
 * entry's own folder without one). The build runs there, so what esbuild writes of each module's
 * path (a CommonJS module's name, the source map's sources) is relative to it: the same bytes
 * from any working directory and any checkout path.
 */
export function providerRoot(entry: string): string {
  const from = path.dirname(path.resolve(entry));
  for (let at = from; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, "package.json"))) return at;
    if (path.dirname(at) === at) return from;
  }
}

/** Bundles `entry` (TypeScript or tsc's output) into one classic script with its source map inline. */
export async function bundleAsScript(entry: string): Promise<ScriptBundle> {
  const { build } = await import("esbuild");
  const root = providerRoot(entry);
  const conditions = isRuntimeCheckout(runtimeRootFrom(path.dirname(path.resolve(entry))))
    ? [sourceCondition, "module"]
    : ["module"];
  let result: Awaited<ReturnType<typeof build<{ write: false; metafile: true }>>>;
  const unbundled = new UnbundledPackages(path.dirname(path.resolve(entry)));
  const builtins = new Set<string>();
  // A kept package is `require`d by the script, as a built-in is (the same shim).
  const keptPlugin = unbundled.plugin((args) =>
    args.kind === "require-call"
      ? { path: args.path, external: true }
      : { path: args.path, namespace: "harness-tool-builtin" },
  );
  try {
    result = await buildKeepingOut(unbundled, () =>
      build({
        absWorkingDir: root,
        entryPoints: [path.resolve(entry)],
        bundle: true,
        write: false,
        outfile: "provider.cjs",
        platform: "node",
        format: "esm",
        target: nodeTarget,
        plugins: [nativeBase64Plugin(), keptPlugin, builtinsThroughRequire(builtins)],
        define: { "import.meta.url": fileUrlName },
        conditions,
        logLevel: "silent",
        metafile: true,
        minifyWhitespace: true,
        minifySyntax: true,
        keepNames: true,
        sourcemap: "external",
        sourcesContent: false,
      }),
    );
  } catch (error) {
    if (error instanceof UnbundledPackageError) throw new ScriptBundleError(error.message);
    throw new ScriptBundleError(esbuildMessages(error) ?? String(error));
  }
  const code = result.outputFiles.find((f) => f.path.endsWith(".cjs"))?.text;
  const map = result.outputFiles.find((f) => f.path.endsWith(".map"))?.text;
  if (code === undefined || map === undefined) throw new Error("esbuild wrote no script or no source map");
  const exported = Object.values(result.metafile.outputs).flatMap((output) => output.exports);
  if (exported.length > 0) {
    throw new ScriptBundleError(
      `${entry} exports ${exported.join(", ")}: a provider's entry only runs serve(), and nothing can import a release`,
    );
  }
  // esbuild keeps the entry's `#!` line first; inside the wrapper it would be a syntax error.
  const hashbang = /^#!.*\n/.test(code);
  const body = code.replace(/^#!.*\n/, "").replace(/\n\/\/# sourceMappingURL=\S+\n?$/, "\n");
  const script = `${wrapperHead}\n${body}${wrapperTail}\n`;
  try {
    new Script(script, { filename: "provider.cjs" });
  } catch (error) {
    throw new ScriptBundleError(
      `${entry} did not become one classic script: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const inputs = Object.keys(result.metafile.inputs);
  return {
    script,
    sourceMapComment: inlineSourceMap(map, hashbang),
    modules: inputs.length,
    entry,
    inputs,
    root,
    conditions,
    kept: unbundled.kept,
    builtins: [...builtins].sort(),
  };
}

/**
 * The map as a data URL comment, its mappings one line down for the wrapper's head (unless the
 * `#!` line it replaces was dropped). Its sources stay as esbuild wrote them, relative to the
 * output's folder, the provider's root: no builder's path in a shipped file. Node resolves a
 * relative source against the file that carries the map, so a stack trace names
 * `<the .mjs's folder>/src/handlers.ts`.
 */
function inlineSourceMap(mapText: string, droppedHashbang: boolean): string {
  const map = JSON.parse(mapText) as { sources: string[]; mappings: string };
  const mappings = droppedHashbang ? map.mappings : `;${map.mappings}`;
  const shifted = { ...map, mappings };
  return `//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(shifted)).toString("base64")}`;
}

/** The name under which the single-file module's launcher holds the program (replaced after its build). */
const programName = "__harnessToolProgram";

/** The name of the supervisor's functions in a single executable's main script. */
const supervisorName = "__harnessToolSupervisor";

/**
 * The single-file `.mjs` release: an ES module with a shebang that decides supervision first
 * (harness-tool's supervisor inlined, early-supervision.ts: a supervisor never compiles the
 * program), then turns on V8's module compile cache and source maps and compiles the program (with its source map) as a
 * CommonJS module named after the file itself. Node reads a script's source map only when maps are
 * on as the script is compiled, and a file cannot turn them on for itself. The program is one
 * string literal, so the file's checksum covers every line that runs.
 */
export async function singleFileModule(bundle: ScriptBundle): Promise<string> {
  const program = JSON.stringify(`${bundle.script}${bundle.sourceMapComment}\n`);
  const head = [
    "#!/usr/bin/env node",
    "// Built by `harness-tool release`: the provider in one file (its program and source map inline).",
  ];
  const compile = [
    // V8's module compile cache, as `harness-tool bundle`'s executable turns it on (bundle-command.ts).
    "Module.enableCompileCache?.();",
    "process.setSourceMapsEnabled(true);",
    "const file = fileURLToPath(import.meta.url);",
    "const program = new Module(file);",
    "program.filename = file;",
    // Where its `require` looks for packages (a module made by hand has none): beside the file, then up.
    "program.paths = Module._nodeModulePaths(dirname(file));",
    `program._compile(${programName}, file);`,
  ];
  const imports = [
    'import { Module } from "node:module";',
    'import { dirname } from "node:path";',
    'import { fileURLToPath } from "node:url";',
  ];
  const launcher = await bundleEarlySupervision({
    entry: bundle.entry,
    providerInputs: bundle.inputs,
    providerRoot: bundle.root,
    conditions: bundle.conditions,
    format: "esm",
    source: [
      `import { superviseBeforeLoading } from ${JSON.stringify(supervisorSpecifier)};`,
      ...imports,
      "if (!superviseBeforeLoading()) {",
      ...compile,
      "}",
    ].join("\n"),
  });
  const text =
    launcher === undefined
      ? [...head, ...imports, ...compile, ""].join("\n")
      : [
          ...head,
          "// It first decides, from the environment alone, whether this process is the provider's supervisor",
          "// (harness-tool/supervisor, inlined below); the supervisor never compiles the program.",
          launcher,
        ].join("\n");
  return text.replace(programName, () => program);
}

/** The name under which a single executable's main script keeps Node's own `require` (built-ins only). */
const seaRequireName = "__harnessToolSeaRequire";

/** The name of the main script's unpacking of the carried files, done once: it returns their folder. */
const folderName = "__harnessToolCarriedFolder";

/** The asset key of the supervisor program a single executable carries (cli/release/supervisor-binaries.ts). */
export const supervisorAssetKey = "harness-tool-supervisor";

/**
 * A single executable's unpacking of the files it carries (its assets: the packages kept out,
 * keyed `node_modules/…`, and the supervisor program): on the first run into
 * `<cache>/harness-tool/provider-files/<digest>/` (a temporary folder renamed into place, so a
 * folder there is complete; a second process racing the first uses the winner's); returns that
 * folder. The digest is the files' (cli/release/build-release.ts), so a changed provider never
 * reads an older one's files.
 */
export const unpackCarried = `function (seaRequire, keys, digest) {
  const fs = seaRequire("node:fs"), path = seaRequire("node:path"), os = seaRequire("node:os"), sea = seaRequire("node:sea");
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  const base = process.env.HARNESS_TOOL_PROVIDER_FILES || path.join(cache, "harness-tool", "provider-files");
  const dir = path.join(base, digest);
  const complete = path.join(dir, ".complete");
  if (!fs.existsSync(complete)) {
    let partial;
    try {
      fs.mkdirSync(base, { recursive: true, mode: 0o700 });
      partial = fs.mkdtempSync(path.join(base, "." + digest.slice(0, 16) + "-"));
      for (const key of keys) {
        const file = path.join(partial, key);
        const executable = key.endsWith(".node") || key === ${JSON.stringify(supervisorAssetKey)};
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, new Uint8Array(sea.getRawAsset(key)), { mode: executable ? 0o755 : 0o644 });
      }
      fs.writeFileSync(path.join(partial, ".complete"), "");
      fs.renameSync(partial, dir);
    } catch (error) {
      if (partial !== undefined) fs.rmSync(partial, { recursive: true, force: true });
      if (!fs.existsSync(complete)) {
        throw new Error("could not unpack the provider's files into " + dir + " (" + error.message + "): set HARNESS_TOOL_PROVIDER_FILES to a writable folder");
      }
    }
  }
  return dir;
}`;

/**
 * The supervisor program a single executable hands supervision to (asked only in the process that
 * supervises): the carried file, unpacked; none (the Node supervisor runs) where this Node has no
 * `process.execve` or the file cannot be unpacked, which is said in one line on stderr.
 */
export const carriedSupervisor = `function (seaRequire, folder, key) {
  if (typeof process.execve !== "function") return undefined;
  try {
    return seaRequire("node:path").join(folder(), key);
  } catch (error) {
    seaRequire("node:fs").writeSync(2, "harness-tool: the Node supervisor runs instead of the one this executable carries: " + error.message + "\\n");
    return undefined;
  }
}`;

/** The files a single executable carries as assets: their keys and the digest of their contents. */
export interface CarriedAssets {
  /** The packages kept out of the program (`node_modules/…`). */
  readonly keys: readonly string[];
  readonly digest: string;
  /** The key of the supervisor program among the assets, if it carries one. */
  readonly supervisor?: string;
}

/**
 * A single executable's main script: the supervision decided first (the supervisor inlined as a
 * classic script), the program run only when this process is not the supervisor. The program's
 * function is parsed lazily, so a supervisor does not run or fully compile it. With `carried`, the
 * program's `require` is one that finds the packages kept out of it, unpacked from the executable,
 * and a supervisor hands its place to the supervisor program it carries.
 */
export async function singleExecutableMain(bundle: ScriptBundle, carried?: CarriedAssets): Promise<string> {
  const packages = carried?.keys ?? [];
  const program =
    packages.length === 0
      ? bundle.script
      : `{ const require = ${seaRequireName}("node:module").createRequire(${seaRequireName}("node:path").join(${folderName}(), "provider.cjs"));\n${bundle.script}}\n`;
  const keys = [...packages, ...(carried?.supervisor !== undefined ? [carried.supervisor] : [])];
  const head =
    carried === undefined || keys.length === 0
      ? ""
      : `const ${seaRequireName} = require;\nconst ${folderName} = (() => { let folder; return () => (folder ??= (${unpackCarried})(${seaRequireName}, ${JSON.stringify(keys)}, ${JSON.stringify(carried.digest)})); })();\n`;
  const supervisor = await bundleEarlySupervision({
    entry: bundle.entry,
    providerInputs: bundle.inputs,
    providerRoot: bundle.root,
    conditions: bundle.conditions,
    format: "iife",
    globalName: supervisorName,
  });
  if (supervisor === undefined) return `${head}${program}`;
  const supervisorProgram =
    carried?.supervisor === undefined
      ? ""
      : `() => (${carriedSupervisor})(${seaRequireName}, ${folderName}, ${JSON.stringify(carried.supervisor)})`;
  return `${head}${supervisor}if (!${supervisorName}.superviseBeforeLoading(${supervisorProgram})) {\n${program}}\n`;
}
