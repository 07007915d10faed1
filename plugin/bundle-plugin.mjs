#!/usr/bin/env node
// Bundles protoc-gen-harness-tool into one ES module, <outdir>/plugin/protoc-gen-harness-tool.mjs,
// which the bin runs in an installed package: `npm run build` (and so `npm pack`) calls this after
// tsc, `node plugin/bundle-plugin.mjs [outdir]` (default dist).
//
// Why: buf starts the plugin once per `buf generate`, and before this bundle most of a small run
// was Node loading modules (bench/RESULTS.md, code generation). One file loads faster than a few
// hundred, and the bundle leaves out what a run never calls: protoplugin imports the TypeScript
// compiler for transpiling one target into another, which this plugin never asks it to do (it
// prints ts, js and dts itself), and json-schema-to-typescript imports prettier, which only its
// compile() calls, to format (compile-types.ts runs its parser stages and print-types.ts prints
// the result). Both stand-ins throw if ever called.
import { build } from "esbuild";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.resolve(process.argv[2] ?? path.join(root, "dist"));

/** What the bundle holds instead of each module a run never calls, as module source. */
const standIns = {
  typescript: `export default new Proxy({}, { get(_, name) { throw new Error("protoc-gen-harness-tool does not bundle the TypeScript compiler (asked for ts." + String(name) + ")"); } });`,
  "@typescript/vfs": ["createDefaultMapFromNodeModules", "createSystem", "createVirtualCompilerHost"]
    .map((name) => `export function ${name}() { throw new Error("protoc-gen-harness-tool does not bundle @typescript/vfs"); }`)
    .join("\n"),
  prettier: `export function format() { throw new Error("protoc-gen-harness-tool does not bundle prettier (json-schema-to-typescript runs with format: false)"); }`,
};

const result = await build({
  entryPoints: [path.join(root, "plugin/main.ts")],
  outfile: path.join(outdir, "plugin/protoc-gen-harness-tool.mjs"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // CommonJS dependencies (json-schema-to-typescript and its own) call require.
  banner: { js: "import { createRequire as __pluginCreateRequire } from 'node:module';\nconst require = __pluginCreateRequire(import.meta.url);" },
  // json-schema-to-typescript loads cli-color only to color its debug log, when it is installed.
  external: ["cli-color"],
  plugins: [
    {
      name: "stand-ins",
      setup(b) {
        const filter = new RegExp(`^(${Object.keys(standIns).map((n) => n.replace(/[/@]/g, "\\$&")).join("|")})$`);
        b.onResolve({ filter }, (args) => ({ path: args.path, namespace: "stand-in" }));
        b.onLoad({ filter: /.*/, namespace: "stand-in" }, (args) => ({ contents: standIns[args.path], loader: "js" }));
      },
    },
  ],
  logLevel: "warning",
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
process.stdout.write(`bundled protoc-gen-harness-tool: ${Object.keys(result.metafile.inputs).length} modules, ${(bytes / 1024).toFixed(0)} KiB\n`);
