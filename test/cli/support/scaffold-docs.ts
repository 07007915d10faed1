// The reference docs `harness-tool init` writes (cli/templates: provider/docs/README.md, each
// example's docs-row.md, docs-hook-points.md and files/docs/tools/<tool>.md) are harness-tool docs'
// output for the scaffold, cut into the pieces init joins. Run this file to rewrite the pieces from
// a scaffold of every example:
//   node node_modules/tsx/dist/cli.mjs --conditions=harness-tool-source test/cli/support/scaffold-docs.ts
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ExampleName, exampleNames } from "../../../cli/templates/scaffold-files.js";
import { repoRoot } from "../../support/buf.js";
import { cli } from "./run-cli.js";
import { scaffoldRepository } from "./scaffold-repository.js";

/** Each tool example's tool. */
export const exampleTools: { readonly [E in Exclude<ExampleName, "hook">]: string } = {
  data_source: "read_note",
  resource: "save_note",
  process: "run_command",
  interactive: "ask_user",
};

/** `harness-tool docs`' arguments for the scaffold in `dir`, as its npm run docs gives them (paths absolute). */
export function scaffoldDocsArgs(dir: string): string[] {
  return ["docs", dir, "--config", path.join(dir, "dev-config.json"), "--out-dir", path.join(dir, "docs")];
}

/** Rewrites the docs pieces of cli/templates from harness-tool docs' output for a scaffold of every example. */
async function writePieces(): Promise<void> {
  const [name, upper, source] = ["xyzzy", "XYZZY", "github.com/acme/xyzzy-source"];
  const dir = scaffoldRepository(name, source, exampleNames);
  try {
    const run = await cli(scaffoldDocsArgs(dir));
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
