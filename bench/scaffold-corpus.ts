/**
 * harness-tool's type-check corpus: the repository `harness-tool init` writes, with the synthetic
 * provider's proto in place of the example and `npm run generate` run, as a user of the
 * synthetic tools would have it. The scaffold's own package.json, buf.yaml, buf.gen.yaml and
 * tsconfig.json (cli/templates/provider/); src/handlers.ts implementing the generated handler
 * interface with the body every corpus shares; src/main.ts serving the provider, as the
 * scaffold's does; node_modules/harness-tool is the workspace's built package, and the plugin runs
 * through its bin, as npm links it.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { scaffoldFiles } from "../cli/templates/scaffold-files.js";
import { bufExecutable, repoBin, type BenchWorkspace } from "./bench-workspace.js";
import { pluginCommand } from "./harness-tool-plugin.js";
import { runTimed } from "./measure.js";
import { writeSyntheticProtos, type SyntheticTool } from "./synthetic-protos.js";
import { sharedHandlerBody } from "./typecheck-corpus.js";

/** The scaffold's files the corpus keeps as init writes them. */
const keptScaffoldFiles = ["package.json", "buf.yaml", "buf.gen.yaml", "tsconfig.json"];

/** The generated module of the synthetic provider, from src/. */
const syntheticModule = "./gen/bench/synthetic/v1/synthetic_tool.js";

/** A written corpus, or why there is none. */
export type ScaffoldCorpus = { readonly ok: true; readonly dir: string } | { readonly ok: false; readonly why: string };

/**
 * Writes the corpus into `dir` and generates its src/gen. `bufGen` replaces the scaffold's
 * buf.gen.yaml (to measure another target on the same repository).
 */
export async function writeScaffoldCorpus(
  ws: BenchWorkspace,
  dir: string,
  tools: readonly SyntheticTool[],
  bufGen?: (scaffold: string) => string,
): Promise<ScaffoldCorpus> {
  const plugin = pluginCommand(ws);
  if (!plugin.ok) return { ok: false, why: plugin.why };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, "node_modules/.bin"), { recursive: true });
  const scaffold = scaffoldFiles({
    name: "synthetic",
    source: "github.com/acme/bench-synthetic",
    examples: [],
    packages: { runtime: "^0.1.0", plugin: "^0.1.0", cli: "^0.1.0" },
    directory: dir,
  });
  for (const name of keptScaffoldFiles) {
    const text = scaffold.get(name);
    if (text === undefined) return { ok: false, why: `the scaffold has no ${name}` };
    writeFileSync(path.join(dir, name), name === "buf.gen.yaml" && bufGen ? bufGen(text) : text);
  }
  // As npm installs it: the package, and its bins linked (the plugin's bin finds the bundle beside it).
  symlinkSync(ws.packageDir, path.join(dir, "node_modules/harness-tool"));
  mkdirSync(path.join(dir, "node_modules/@harness-tool"));
  symlinkSync(ws.pluginDir, path.join(dir, "node_modules/@harness-tool/protoc-gen-harness-tool"));
  const [, bin] = plugin.argv;
  if (bin === undefined) return { ok: false, why: `unexpected plugin command ${plugin.argv.join(" ")}` };
  symlinkSync(bin, path.join(dir, "node_modules/.bin/protoc-gen-harness-tool"));
  writeSyntheticProtos(path.join(dir, "proto"), tools.length, "one-file");
  mkdirSync(path.join(dir, "src"));
  writeFileSync(
    path.join(dir, "src/handlers.ts"),
    `// The synthetic provider's tools, implemented with the body every corpus shares.
import type { SyntheticHandlers } from "${syntheticModule}";

/** The handlers, one per tool. */
export const handlers: SyntheticHandlers = {
${tools.map((t) => `  async ${t.handlerKey}(input) {\n    return ${sharedHandlerBody("input")};\n  },\n`).join("")}};
`,
  );
  writeFileSync(
    path.join(dir, "src/main.ts"),
    `#!/usr/bin/env node
import { serve } from "harness-tool";
import { createSyntheticProvider } from "${syntheticModule}";
import { handlers } from "./handlers.js";

await serve(createSyntheticProvider(handlers));
`,
  );
  const env = {
    ...process.env,
    PATH: [path.join(dir, "node_modules/.bin"), repoBin, process.env["PATH"] ?? ""].join(path.delimiter),
  };
  const gen = await runTimed(bufExecutable(), ["generate"], { cwd: dir, env, timeoutMs: 300_000, measureRss: false });
  if (gen.status !== 0)
    return { ok: false, why: `npm run generate (buf generate) failed: ${gen.stderr.trim().slice(0, 400)}` };
  return { ok: true, dir };
}
