/**
 * Finds protoc-gen-harness-tool. A provider author runs the plugin shipped in the npm package
 * (compiled JS), so a plugin written in TypeScript is run from the workspace's built package
 * (node_modules/harness-tool/dist/...), not through tsx. HARNESS_TOOL_PLUGIN overrides the search
 * with a path to a .js/.mjs entry.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot, type BenchWorkspace } from "./bench-workspace.js";

/** How to run the plugin, or why it cannot be. */
export type PluginCommand =
  | { readonly ok: true; readonly argv: readonly string[]; readonly describe: string }
  | { readonly ok: false; readonly why: string };

const candidates = [
  "plugin/protoc-gen-harness-tool.mjs",
  "plugin/protoc-gen-harness-tool.js",
  "plugin/bin/protoc-gen-harness-tool.mjs",
  "plugin/protoc-gen-harness-tool.ts",
  "plugin/bin/protoc-gen-harness-tool.ts",
  "plugin/main.ts",
  "bin/protoc-gen-harness-tool.mjs",
];

function binFromPackageJson(): string | undefined {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { bin?: string | Record<string, string> };
  if (typeof pkg.bin === "object") return pkg.bin["protoc-gen-harness-tool"];
  return undefined;
}

/** The plugin's entry in the repository, relative to its root. */
export function pluginEntry(): string | undefined {
  const override = process.env["HARNESS_TOOL_PLUGIN"];
  if (override) return path.resolve(override);
  const fromBin = binFromPackageJson();
  for (const rel of [...(fromBin ? [fromBin] : []), ...candidates]) {
    if (existsSync(path.join(repoRoot, rel))) return rel.replace(/^\.\//, "");
  }
  return undefined;
}

/** The command that runs the plugin, for a buf.gen.yaml `local:` list. */
export function pluginCommand(ws: BenchWorkspace | undefined): PluginCommand {
  const entry = pluginEntry();
  if (entry === undefined) {
    return { ok: false, why: `plugin not available (looked for package.json bin "protoc-gen-harness-tool" and ${candidates.join(", ")}; set HARNESS_TOOL_PLUGIN=<entry.js>)` };
  }
  if (path.isAbsolute(entry)) return { ok: true, argv: [process.execPath, entry], describe: `node ${entry} (HARNESS_TOOL_PLUGIN)` };
  if (!entry.endsWith(".ts")) {
    // A JS bin ships as it is in the package; run it from the built package when there is one,
    // so it finds the compiled plugin beside it.
    const packaged = ws ? path.join(ws.packageDir, entry) : undefined;
    if (packaged && !existsSync(packaged)) {
      mkdirSync(path.dirname(packaged), { recursive: true });
      copyFileSync(path.join(repoRoot, entry), packaged);
    }
    if (packaged && existsSync(packaged)) return { ok: true, argv: [process.execPath, packaged], describe: `node node_modules/harness-tool/${entry}` };
    return { ok: true, argv: [process.execPath, path.join(repoRoot, entry)], describe: `node ${entry}` };
  }
  const compiled = ws ? path.join(ws.packageDir, "dist", entry.replace(/\.ts$/, ".js")) : undefined;
  if (compiled && existsSync(compiled)) {
    return { ok: true, argv: [process.execPath, compiled], describe: `node node_modules/harness-tool/dist/${entry.replace(/\.ts$/, ".js")} (compiled with tsconfig.build.json)` };
  }
  return { ok: false, why: `the plugin's entry ${entry} did not compile into the package's dist (see the build diagnostics)` };
}
