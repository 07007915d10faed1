#!/usr/bin/env node
// Builds the @harness-tool/protoc-gen-harness-tool package: bundles the plugin into one ES module,
// <outdir>/protoc-gen-harness-tool.mjs, which the bin runs in an installed package, writes the
// licenses of what the bundle holds beside it (<outdir>/THIRD-PARTY-NOTICES.md), and copies the
// repository's proto/ into plugin/proto/ (the annotations a provider's protos import, with the
// kernel's protos they import in turn). `npm run build -w @harness-tool/protoc-gen-harness-tool`
// (and so `npm pack`) runs it; `node plugin/bundle-plugin.mjs [outdir]` (default plugin/dist)
// writes the bundle and its notices only.
//
// Why: buf starts the plugin once per `buf generate`, and before this bundle most of a small run
// was Node loading modules (bench/RESULTS.md, code generation). One file loads faster than a few
// hundred, and the bundle leaves out what a run never calls: protoplugin imports the TypeScript
// compiler for transpiling one target into another, which this plugin never asks it to do (it
// prints ts, js and dts itself), and json-schema-to-typescript imports prettier, which it calls
// only to format, which the plugin never asks it to do. The stand-ins throw if ever called.
//
// The runtime's code the plugin uses (the ToolSchema invariants, the JSON-Schema subset) is bundled
// from its sources in this repository, so the bundle checks exactly the rules of the runtime
// version it is released with; the package's peer dependency on that version says so to npm.
import { build } from "esbuild";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..");
const outdir = path.resolve(process.argv[2] ?? path.join(here, "dist"));

/** What the bundle holds instead of each module a run never calls, as module source. */
const standIns = {
  typescript: `export default new Proxy({}, { get(_, name) { throw new Error("protoc-gen-harness-tool does not bundle the TypeScript compiler (asked for ts." + String(name) + ")"); } });`,
  "@typescript/vfs": ["createDefaultMapFromNodeModules", "createSystem", "createVirtualCompilerHost"]
    .map(
      (name) =>
        `export function ${name}() { throw new Error("protoc-gen-harness-tool does not bundle @typescript/vfs"); }`,
    )
    .join("\n"),
  // json-schema-to-typescript imports its formatter at load, and calls it only with `format: true`;
  // the plugin compiles with `format: false` (emit/compiled-types.ts).
  prettier: `export function format() { throw new Error("protoc-gen-harness-tool does not bundle prettier"); }\nexport default { format };`,
};

const result = await build({
  entryPoints: [path.join(here, "main.ts")],
  outfile: path.join(outdir, "protoc-gen-harness-tool.mjs"),
  // `harness-tool` (the runtime, a workspace of this repository) from its TypeScript sources.
  conditions: ["harness-tool-source"],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  // json-schema-to-typescript and its dependencies are CommonJS and require Node's built-ins
  // (fs, path, ...), which an ES module bundle can do only through a require of its own.
  banner: {
    js: 'import { createRequire as createRequireOfBundle } from "node:module";\nconst require = createRequireOfBundle(import.meta.url);',
  },
  plugins: [
    {
      name: "stand-ins",
      setup(b) {
        const filter = new RegExp(
          `^(${Object.keys(standIns)
            .map((n) => n.replace(/[/@]/g, "\\$&"))
            .join("|")})$`,
        );
        b.onResolve({ filter }, (args) => ({ path: args.path, namespace: "stand-in" }));
        b.onLoad({ filter: /.*/, namespace: "stand-in" }, (args) => ({ contents: standIns[args.path], loader: "js" }));
      },
    },
  ],
  logLevel: "warning",
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);

/** The folder of the npm package a bundled input belongs to, or undefined for this repository's own files. */
function packageFolderOf(input) {
  // Inputs are relative to esbuild's working directory, the process's.
  const parts = path.resolve(input).split(path.sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return undefined;
  const name = parts[at + 1]?.startsWith("@") ? parts.slice(at + 1, at + 3) : parts.slice(at + 1, at + 2);
  return [...parts.slice(0, at + 1), ...name].join(path.sep);
}

// Every third-party package in the bundle keeps its license text: one section per package.
const notices = [];
for (const folder of [
  ...new Set(
    Object.keys(result.metafile.inputs)
      .map(packageFolderOf)
      .filter((f) => f !== undefined),
  ),
].sort()) {
  const pkg = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
  const licenseFile = readdirSync(folder).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const text = licenseFile
    ? readFileSync(path.join(folder, licenseFile), "utf8").trim()
    : `${pkg.license ?? "no license file"} (no license text in the package)`;
  notices.push(`## ${pkg.name} ${pkg.version}\n\nLicense: ${pkg.license ?? "unknown"}\n\n\`\`\`\n${text}\n\`\`\`\n`);
}
writeFileSync(
  path.join(outdir, "THIRD-PARTY-NOTICES.md"),
  `# Third-party notices\n\nprotoc-gen-harness-tool.mjs bundles these packages; their licenses follow.\n\n${notices.join("\n")}`,
);

// The package's proto/: only when building the package itself (no outdir argument).
if (process.argv[2] === undefined) {
  const protoCopy = path.join(here, "proto");
  rmSync(protoCopy, { recursive: true, force: true });
  cpSync(path.join(repoRoot, "proto"), protoCopy, { recursive: true, filter: (source) => !source.endsWith(".md") });
  if (!existsSync(path.join(protoCopy, "harnesstool/v1/annotations.proto")))
    throw new Error("proto/harnesstool/v1/annotations.proto was not copied");
}
process.stdout.write(
  `bundled protoc-gen-harness-tool: ${Object.keys(result.metafile.inputs).length} modules, ${(bytes / 1024).toFixed(0)} KiB, ${notices.length} third-party packages\n`,
);
