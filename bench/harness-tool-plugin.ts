/**
 * Finds protoc-gen-harness-tool. A provider author runs the plugin package's bin, which runs the
 * bundle beside it, so the bench runs that bin from the workspace's built plugin package
 * (node_modules/@harness-tool/protoc-gen-harness-tool, bench-workspace.ts), never through tsx.
 * HARNESS_TOOL_PLUGIN overrides it with a path to a .js/.mjs entry.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { BenchWorkspace } from "./bench-workspace.js";

/** How to run the plugin, or why it cannot be. */
export type PluginCommand =
  | { readonly ok: true; readonly argv: readonly string[]; readonly describe: string }
  | { readonly ok: false; readonly why: string };

/** The command that runs the plugin, for a buf.gen.yaml `local:` list. */
export function pluginCommand(ws: BenchWorkspace | undefined): PluginCommand {
  const override = process.env["HARNESS_TOOL_PLUGIN"];
  if (override)
    return {
      ok: true,
      argv: [process.execPath, path.resolve(override)],
      describe: `node ${override} (HARNESS_TOOL_PLUGIN)`,
    };
  if (ws === undefined) return { ok: false, why: "no workspace with the built plugin package" };
  const bin = path.join(ws.pluginDir, "protoc-gen-harness-tool.mjs");
  if (!existsSync(path.join(ws.pluginDir, "dist/protoc-gen-harness-tool.mjs"))) {
    return { ok: false, why: "the plugin's bundle was not built into the workspace (see the build diagnostics)" };
  }
  return {
    ok: true,
    argv: [process.execPath, bin],
    describe: "node node_modules/@harness-tool/protoc-gen-harness-tool/protoc-gen-harness-tool.mjs (the bundle)",
  };
}
