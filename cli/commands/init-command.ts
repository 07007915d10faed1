/**
 * `harness-tool init [dir]`: scaffolds a provider repository. With flags it is non-interactive; on
 * a terminal with no arguments it asks for the name, the source address and the example tools. It
 * refuses a non-empty directory unless `--force`, and prints the next commands when done.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { exampleNames, scaffoldFiles, type ExampleName, type ScaffoldSpec } from "../../templates/provider-repo.js";
import { UsageError } from "../usage-error.js";

const namePattern = /^[a-z][a-z0-9_]*$/;

/** This package's version, for the new repository's dependency on it. */
function ownVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "harness-tool" && pkg.version) return pkg.version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return "0.1.0";
    dir = parent;
  }
}

function parseExamples(text: string): ExampleName[] {
  const chosen = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const e of chosen) {
    if (!(exampleNames as readonly string[]).includes(e)) throw new UsageError(`unknown example ${JSON.stringify(e)}: choose from ${exampleNames.join(", ")}`);
  }
  if (chosen.length === 0) throw new UsageError(`--examples needs at least one of ${exampleNames.join(", ")}`);
  return [...new Set(chosen)] as ExampleName[];
}

/** Asks on the terminal, with @clack/prompts. Returns undefined when the user cancels. */
async function ask(defaults: { dir: string; name: string }): Promise<{ dir: string; name: string; source: string; examples: ExampleName[] } | undefined> {
  const prompts = await import("@clack/prompts");
  prompts.intro("harness-tool init: a new tool provider");
  const name = await prompts.text({
    message: "Provider name (snake_case)",
    placeholder: defaults.name,
    defaultValue: defaults.name,
    validate: (v) => (v === undefined || v === "" || namePattern.test(v) ? undefined : "lowercase letters, digits and _, starting with a letter"),
  });
  if (prompts.isCancel(name)) return undefined;
  const dir = await prompts.text({ message: "Directory", placeholder: name, defaultValue: name });
  if (prompts.isCancel(dir)) return undefined;
  const source = await prompts.text({ message: "Source address (ProducerRef.source)", placeholder: `github.com/you/provider-${name}`, defaultValue: `github.com/you/provider-${name}` });
  if (prompts.isCancel(source)) return undefined;
  const examples = await prompts.multiselect({
    message: "Example tools",
    options: [
      { value: "data_source", label: "data_source", hint: "read_note: reads, runs freely" },
      { value: "resource", label: "resource with key_fields", hint: "save_note: mutates, approved first" },
      { value: "process", label: "streaming, process-backed", hint: "run_command: streams a child's output" },
      { value: "interactive", label: "interactive", hint: "ask_user: waits for a person" },
    ],
    initialValues: [...exampleNames],
    required: true,
  });
  if (prompts.isCancel(examples)) return undefined;
  prompts.outro("Writing the repository.");
  return { dir, name, source, examples: examples as ExampleName[] };
}

/** Runs the command; resolves to the exit code. */
export async function initCommand(argv: readonly string[], streams: { out: NodeJS.WritableStream; err: NodeJS.WritableStream }): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      name: { type: "string" },
      source: { type: "string" },
      examples: { type: "string" },
      force: { type: "boolean", default: false },
      "harness-tool": { type: "string" },
    },
  });
  if (positionals.length > 1) throw new UsageError("usage: harness-tool init [dir] [--name N] [--source S] [--examples a,b] [--force]");
  const interactive = argv.length === 0 && process.stdin.isTTY === true && process.stdout.isTTY === true;

  let dir = positionals[0] ?? ".";
  let name = values.name ?? path.basename(path.resolve(dir)).replace(/^provider[-_]/, "").replace(/-/g, "_").toLowerCase();
  let source = values.source ?? `github.com/you/provider-${name.replace(/_/g, "-")}`;
  let examples = values.examples ? parseExamples(values.examples) : [...exampleNames];
  if (interactive) {
    const answers = await ask({ dir, name: namePattern.test(name) ? name : "my_tools" });
    if (!answers) {
      streams.err.write("harness-tool init: cancelled\n");
      return 130;
    }
    ({ dir, name, source, examples } = answers);
  }
  if (!namePattern.test(name)) {
    throw new UsageError(`provider name ${JSON.stringify(name)} is not snake_case (lowercase letters, digits and _): pass --name`);
  }
  const target = path.resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0 && !values.force) {
    throw new UsageError(`${target} is not empty: choose an empty directory, or pass --force to write into it`);
  }
  const spec: ScaffoldSpec = {
    name,
    source,
    examples,
    harnessToolSpec: values["harness-tool"] ?? `^${ownVersion()}`,
    directory: target,
  };
  const files = scaffoldFiles(spec);
  for (const [relative, text] of files) {
    const file = path.join(target, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const shown = path.relative(process.cwd(), target) || ".";
  streams.out.write(
    `Created provider-${name.replace(/_/g, "-")} in ${target} (${files.size} files).\n\nNext:\n` +
      (shown === "." ? "" : `  cd ${shown}\n`) +
      "  npm install\n  npm run generate && npm run build && npm test\n  npm run check\n",
  );
  return 0;
}
