/**
 * Running protoc-gen-es and protoc-gen-harness-tool together, as a provider repository does
 * (examples/*\/buf.gen.yaml), on protos written into a folder of the workspace; and finding the
 * generated handlers interface and provider factory in the output.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { bufExecutable, repoBin, repoRoot, type BenchWorkspace } from "./bench-workspace.js";
import { pluginCommand } from "./harness-tool-plugin.js";
import { runTimed } from "./measure.js";

/** A generated provider: where its `_tool.ts` is and what it exports. */
export interface GeneratedProvider {
  /** The folder holding buf.yaml, proto/ and gen/. */
  readonly root: string;
  /** The `_tool.ts` file, relative to gen/. */
  readonly toolFile: string;
  readonly handlersType: string;
  readonly factory: string;
}

/** The generated provider, or why there is none. */
export type GenerateResult = ({ readonly ok: true } & GeneratedProvider) | { readonly ok: false; readonly why: string };

/**
 * Creates `<ws>/<name>` as a small provider repository (buf.yaml with the package's protos as a
 * second module), lets `writeProtos` fill its proto/ folder, and runs buf generate with both
 * plugins into gen/. The folder is inside the workspace, so Node and tsc resolve its imports from
 * the workspace's node_modules.
 */
export async function generateWithPlugin(ws: BenchWorkspace, name: string, writeProtos: (protoDir: string) => void): Promise<GenerateResult> {
  const plugin = pluginCommand(ws);
  if (!plugin.ok) return { ok: false, why: plugin.why };
  const root = path.join(ws.root, name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  // buf's modules must lie inside its workspace: the package's protos, linked under another name
  // than node_modules so that module resolution still finds the workspace's built package.
  symlinkSync(path.join(repoRoot, "proto"), path.join(root, "harness-tool-proto"));
  writeFileSync(path.join(root, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n  - path: harness-tool-proto\n");
  writeProtos(path.join(root, "proto"));
  writeFileSync(
    path.join(root, "buf.gen.yaml"),
    [
      "version: v2",
      "inputs:",
      "  - directory: proto",
      "plugins:",
      "  - local: protoc-gen-es",
      "    out: gen",
      "    opt: [target=ts, import_extension=js, rewrite_imports=./harnesstool/**/*_pb.js:harness-tool/generated, rewrite_imports=./pluggableharness/**/*_pb.js:harness-tool/generated]",
      `  - local: ${JSON.stringify(plugin.argv)}`,
      "    out: gen",
      "    strategy: all",
      "    opt: [target=ts, import_extension=js]",
      "",
    ].join("\n"),
  );
  const env = { ...process.env, PATH: `${repoBin}${path.delimiter}${process.env["PATH"] ?? ""}` };
  const gen = await runTimed(bufExecutable(), ["generate"], { cwd: root, env, timeoutMs: 300_000, measureRss: false });
  if (gen.status !== 0) return { ok: false, why: `buf generate failed: ${gen.stderr.trim().slice(0, 400)}` };
  const genDir = path.join(root, "gen");
  const toolFile = existsSync(genDir) ? readdirSync(genDir, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith("_tool.ts")) : undefined;
  if (!toolFile) return { ok: false, why: "no *_tool.ts in the plugin's output" };
  const text = readFileSync(path.join(genDir, toolFile), "utf8");
  const handlersType = /export (?:interface|type) (\w+Handlers)\b/.exec(text)?.[1];
  const factory = /export function (create\w*Provider)\b/.exec(text)?.[1];
  if (!handlersType || !factory) return { ok: false, why: `no exported *Handlers type and create*Provider function in ${toolFile}` };
  return { ok: true, root, toolFile, handlersType, factory };
}

/** The import specifier of a generated `_tool.ts` from a file in the generated provider's root. */
export function toolImport(p: GeneratedProvider): string {
  return `./gen/${p.toolFile.replace(/\.ts$/, ".js")}`;
}
