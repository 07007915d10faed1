// The reference docs `harness-tool init` writes (cli/templates: provider/docs/README.md, each
// example's docs-row.md, docs-hook-points.md and files/docs/tools/<tool>.md) are harness-tool docs'
// output for the scaffold, cut into the pieces init joins. scaffoldRepository() writes and generates
// a scaffold as init would (with this checkout's plugin and runtime); run this file to rewrite the
// pieces from a scaffold of every example:
//   node node_modules/tsx/dist/cli.mjs --conditions=harness-tool-source test/cli/support/scaffold-docs.ts
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ExampleName, exampleNames, scaffoldFiles } from "../../../cli/templates/scaffold-files.js";
import { repoRoot, runBuf } from "../../support/buf.js";
import { cli } from "./run-cli.js";

/** Each tool example's tool. */
export const exampleTools: { readonly [E in Exclude<ExampleName, "hook">]: string } = {
  data_source: "read_note",
  resource: "save_note",
  process: "run_command",
  interactive: "ask_user",
};

/** Writes the scaffold of `examples` into a new temp folder, as init would, and generates its code; returns the folder. */
export function scaffoldRepository(name: string, source: string, examples: readonly ExampleName[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-scaffold-docs-"));
  const packages = { runtime: "*", plugin: "*", cli: "*" };
  for (const [file, text] of scaffoldFiles({ name, source, examples, packages, directory: dir })) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  // The plugin package's proto/ exists once it is packed; the checkout's protos are the same files.
  symlinkSync(path.join(repoRoot, "proto"), path.join(dir, "harness-proto"));
  writeFileSync(path.join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n  - path: harness-proto\n");
  const generated = runBuf(["generate"], dir);
  if (generated.status !== 0) throw new Error(`buf generate failed in the scaffold:\n${generated.stderr}`);
  return dir;
}

/** Rewrites the docs pieces of cli/templates from harness-tool docs' output for a scaffold of every example. */
async function writePieces(): Promise<void> {
  const [name, upper, source] = ["xyzzy", "XYZZY", "example.com/acme/xyzzy-source"];
  const dir = scaffoldRepository(name, source, exampleNames);
  try {
    const run = await cli([
      "docs",
      dir,
      "--config",
      path.join(dir, "dev-config.json"),
      "--out-dir",
      path.join(dir, "docs"),
    ]);
    if (run.code !== 0) throw new Error(run.err);
    const templated = (text: string) =>
      text.replaceAll(source, "{{source}}").replaceAll(upper, "{{upperName}}").replaceAll(name, "{{name}}");
    const templates = path.join(repoRoot, "cli/templates");
    const index = templated(readFileSync(path.join(dir, "docs", "README.md"), "utf8"));
    const rows = index.split("\n").filter((line) => line.startsWith("| [`"));
    const hooks = index.split("\n").filter((line) => /^- `[a-z-]+`$/.test(line));
    const template = index.replace(rows.join("\n"), "{{docsToolRows}}").replace(hooks.join("\n"), "{{docsHookPoints}}");
    writeFileSync(path.join(templates, "provider/docs/README.md"), template);
    writeFileSync(path.join(templates, "example-tools/hook/docs-hook-points.md"), `${hooks.join("\n")}\n`);
    for (const [example, tool] of Object.entries(exampleTools)) {
      const folder = path.join(templates, "example-tools", example);
      const row = rows.find((line) => line.startsWith(`| [\`${tool}\`]`));
      writeFileSync(path.join(folder, "docs-row.md"), `${row}\n`);
      mkdirSync(path.join(folder, "files/docs/tools"), { recursive: true });
      const page = readFileSync(path.join(dir, `docs/tools/${tool}.md`), "utf8");
      writeFileSync(path.join(folder, `files/docs/tools/${tool}.md`), templated(page));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await writePieces();
