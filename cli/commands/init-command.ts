/**
 * `harness-tool init [dir]`: scaffolds a provider repository. On a terminal it asks for what its
 * flags did not give (the name, the directory, the source address, where harness-tool is installed
 * from, the example tools); elsewhere, or with `--yes`, it takes the defaults. It refuses a
 * non-empty directory unless `--force`, and prints the next commands when done.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  harnessToolPackages,
  PackageSourceError,
  packageSpecs,
  type PackageSpecs,
} from "../templates/package-sources.js";
import {
  exampleNames,
  scaffoldFiles,
  toolExampleNames,
  type ExampleName,
  type ScaffoldSpec,
} from "../templates/scaffold-files.js";
import { defineCommand } from "./command-definition.js";
import { packageRoot, packageVersion } from "../templates/cli-package.js";
import { UsageError } from "../terminal/usage-error.js";

const namePattern = /^[a-z][a-z0-9_]*$/;

/**
 * Where the new repository installs harness-tool's packages from, by default. When this CLI was
 * installed from a tarball (`npx --package ./harness-tool-cli-0.1.0.tgz ...`, or `npm install` of
 * the tarballs in a project), the installing package.json names it as `file:<path>`: the new
 * repository gets the tarballs of that folder, named relative to the working directory when the
 * folder is in it (`file:./`, the README's quickstart), so the repository names them relative to
 * itself; by its absolute path otherwise. Without a tarball, the registry's release of this version.
 */
export function defaultPackageSource(root = packageRoot(), cwd = process.cwd()): string {
  // The node_modules folder the CLI is installed in (node_modules/@harness-tool/cli); its parent
  // holds the installing package.json.
  let nodeModules = path.dirname(root);
  while (path.basename(nodeModules) !== "node_modules" && path.dirname(nodeModules) !== nodeModules)
    nodeModules = path.dirname(nodeModules);
  if (path.basename(nodeModules) === "node_modules") {
    const installer = path.join(path.dirname(nodeModules), "package.json");
    try {
      const pkg = JSON.parse(readFileSync(installer, "utf8")) as {
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const spec = pkg.dependencies?.[harnessToolPackages.cli] ?? pkg.devDependencies?.[harnessToolPackages.cli];
      if (spec?.startsWith("file:")) {
        const tarball = path.resolve(path.dirname(installer), spec.slice("file:".length));
        if (existsSync(tarball)) {
          const folder = path.dirname(tarball);
          const inside = path.relative(cwd, folder);
          const relative = inside === "" || (!inside.startsWith("..") && !path.isAbsolute(inside));
          return relative ? `file:./${inside.split(path.sep).join("/")}` : `file:${folder}`;
        }
      }
    } catch {
      // No readable package.json above node_modules: fall through to the registry.
    }
  }
  return `^${packageVersion()}`;
}

function parseExamples(text: string): ExampleName[] {
  const chosen = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const e of chosen) {
    if (!(exampleNames as readonly string[]).includes(e))
      throw new UsageError(`unknown example ${JSON.stringify(e)}: choose from ${exampleNames.join(", ")}`);
  }
  if (chosen.length === 0) throw new UsageError(`--examples needs at least one of ${exampleNames.join(", ")}`);
  const problem = examplesProblem(chosen as ExampleName[]);
  if (problem) throw new UsageError(`--examples ${text}: ${problem}`);
  return [...new Set(chosen)] as ExampleName[];
}

/** Why a choice of examples makes no provider (hook subscriptions alone, without a tool), or undefined. */
function examplesProblem(chosen: readonly ExampleName[]): string | undefined {
  if (chosen.some((e) => (toolExampleNames as readonly string[]).includes(e))) return undefined;
  return `hook needs a tool beside it: add one, e.g. ${toolExampleNames[0]}`;
}

/** What init writes; each field either came from a flag or is still open to a question. */
interface InitAnswers {
  dir: string;
  name: string;
  source: string;
  harnessTool: string;
  examples: ExampleName[];
}

const defaultSource = (name: string) => `github.com/you/provider-${name.replace(/_/g, "-")}`;
const nameFromDir = (dir: string) =>
  path
    .basename(path.resolve(dir))
    .replace(/^provider[-_]/, "")
    .replace(/-/g, "_")
    .toLowerCase();

/**
 * Asks on the terminal (@clack/prompts) for each answer in `open`; the others stay as given.
 * Returns undefined when the user cancels.
 */
async function ask(given: InitAnswers, open: ReadonlySet<keyof InitAnswers>): Promise<InitAnswers | undefined> {
  const prompts = await import("@clack/prompts");
  const answers = { ...given };
  prompts.intro("harness-tool init: a new tool provider");
  if (open.has("name")) {
    const fallback = namePattern.test(answers.name) ? answers.name : "my_tools";
    const name = await prompts.text({
      message: "Provider name (snake_case)",
      placeholder: fallback,
      defaultValue: fallback,
      validate: (v) =>
        v === undefined || v === "" || namePattern.test(v)
          ? undefined
          : "lowercase letters, digits and _, starting with a letter",
    });
    if (prompts.isCancel(name)) return undefined;
    answers.name = name;
    if (open.has("source")) answers.source = defaultSource(name);
  }
  if (open.has("dir")) {
    const dir = await prompts.text({ message: "Directory", placeholder: answers.name, defaultValue: answers.name });
    if (prompts.isCancel(dir)) return undefined;
    answers.dir = dir;
  }
  if (open.has("source")) {
    const source = await prompts.text({
      message: "Source address (ProducerRef.source)",
      placeholder: answers.source,
      defaultValue: answers.source,
    });
    if (prompts.isCancel(source)) return undefined;
    answers.source = source;
  }
  if (open.has("harnessTool")) {
    const spec = await prompts.text({
      message: "Install harness-tool's packages from (an npm version range, or file:<folder with their .tgz files>)",
      placeholder: answers.harnessTool,
      defaultValue: answers.harnessTool,
      validate: (v) => {
        try {
          packageSpecs(v === undefined || v === "" ? answers.harnessTool : v, packageVersion());
          return undefined;
        } catch (e) {
          return e instanceof PackageSourceError ? e.message : String(e);
        }
      },
    });
    if (prompts.isCancel(spec)) return undefined;
    answers.harnessTool = spec;
  }
  if (open.has("examples")) {
    const examples = await askExamples(prompts);
    if (examples === undefined) return undefined;
    answers.examples = examples;
  }
  prompts.outro("Writing the repository.");
  return answers;
}

/** Asks which examples, again while the choice makes no provider; undefined when the user cancels. */
async function askExamples(prompts: typeof import("@clack/prompts")): Promise<ExampleName[] | undefined> {
  for (;;) {
    const examples = await prompts.multiselect({
      message: "Examples (tools, and hook subscriptions beside them)",
      options: [
        { value: "data_source", label: "data_source", hint: "read_note: reads, runs freely" },
        { value: "resource", label: "resource with key_fields", hint: "save_note: mutates, approved first" },
        { value: "process", label: "streaming, process-backed", hint: "run_command: streams a child's output" },
        { value: "interactive", label: "interactive", hint: "ask_user: waits for a person" },
        {
          value: "hook",
          label: "hook subscriptions",
          hint: "a plan-ready veto and a post-tool-call audit, beside the tools",
        },
      ],
      initialValues: [...exampleNames],
      required: true,
    });
    if (prompts.isCancel(examples)) return undefined;
    const problem = examplesProblem(examples as ExampleName[]);
    if (!problem) return examples as ExampleName[];
    prompts.log.warn(problem);
  }
}

/** Options of the init command, as its flags give them. */
export interface InitOptions {
  readonly dir?: string | undefined;
  readonly name?: string | undefined;
  readonly source?: string | undefined;
  readonly harnessTool?: string | undefined;
  readonly examples?: string | undefined;
  readonly force: boolean;
  /** Take the defaults for what the flags did not give, even on a terminal. */
  readonly yes: boolean;
}

/** Runs the command; resolves to the exit code. */
export async function initCommand(
  options: InitOptions,
  streams: { out: NodeJS.WriteStream | NodeJS.WritableStream; err: NodeJS.WritableStream },
  terminal = { stdin: process.stdin, stdout: process.stdout },
): Promise<number> {
  const dir = options.dir ?? ".";
  const name = options.name ?? nameFromDir(dir);
  let answers: InitAnswers = {
    dir,
    name,
    source: options.source ?? defaultSource(name),
    harnessTool: options.harnessTool ?? defaultPackageSource(),
    examples: options.examples !== undefined ? parseExamples(options.examples) : [...exampleNames],
  };
  const open = new Set<keyof InitAnswers>();
  if (options.dir === undefined) open.add("dir");
  if (options.name === undefined) open.add("name");
  if (options.source === undefined) open.add("source");
  if (options.harnessTool === undefined) open.add("harnessTool");
  if (options.examples === undefined) open.add("examples");
  const interactive = !options.yes && open.size > 0 && terminal.stdin.isTTY === true && terminal.stdout.isTTY === true;
  if (interactive) {
    const asked = await ask(answers, open);
    if (!asked) {
      streams.err.write("harness-tool init: cancelled\n");
      return 130;
    }
    answers = asked;
  }
  if (!namePattern.test(answers.name)) {
    throw new UsageError(
      `provider name ${JSON.stringify(answers.name)} is not snake_case (lowercase letters, digits and _): pass --name`,
    );
  }
  const target = path.resolve(answers.dir);
  let packages: PackageSpecs;
  try {
    packages = packageSpecs(answers.harnessTool, packageVersion(), target);
  } catch (e) {
    if (e instanceof PackageSourceError) throw new UsageError(`--harness-tool: ${e.message}`);
    throw e;
  }
  if (existsSync(target) && readdirSync(target).length > 0 && !options.force) {
    throw new UsageError(`${target} is not empty: choose an empty directory, or pass --force to write into it`);
  }
  const spec: ScaffoldSpec = {
    name: answers.name,
    source: answers.source,
    examples: answers.examples,
    packages,
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
    `Created provider-${answers.name.replace(/_/g, "-")} in ${target} (${files.size} files), installing harness-tool's packages from ${answers.harnessTool}.\n\nNext:\n` +
      (shown === "." ? "" : `  cd ${shown}\n`) +
      "  npm install\n  npm run generate && npm run build && npm test\n  npm run check\n",
  );
  return 0;
}

/** The command line of `harness-tool init`. */
export const initCommandDefinition = defineCommand({
  name: "init",
  summary: "scaffold a new provider repository",
  description: [
    "Writes a proto with example tools (and, with the hook example, hook subscriptions beside them), their handlers, the provider's entry, tests on harness-tool/testing and the buf configuration. On a terminal it asks for whatever the flags below did not give; elsewhere (or with --yes) it takes the defaults.",
    "The new repository installs harness-tool (the runtime), @harness-tool/protoc-gen-harness-tool and @harness-tool/cli from the npm registry by default. Run from a tarball (npx --yes --package ./harness-tool-cli-0.1.0.tgz --package ./harness-tool-0.1.0.tgz harness-tool init ...) it installs all three from the tarballs of that folder.",
  ].join("\n\n"),
  positionals: [{ name: "dir", optional: true }],
  flags: {
    name: {
      type: "string",
      value: "snake_name",
      description:
        "the provider's name, used for the proto package and the generated names (default: from the directory)",
    },
    source: {
      type: "string",
      value: "address",
      description: "ProducerRef.source (default: github.com/you/provider-<name>)",
    },
    "harness-tool": {
      type: "string",
      value: "spec",
      description:
        "where harness-tool's three packages are installed from: a version range, or file:<folder holding the three .tgz files npm pack writes>",
    },
    examples: {
      type: "string",
      value: "list",
      description: `the examples, comma-separated from ${exampleNames.join(", ")} (hook: hook subscriptions beside the tools; default: all)`,
    },
    force: { type: "boolean", description: "write into a directory that is not empty" },
    yes: { type: "boolean", short: "y", description: "never ask: take the defaults for what the flags did not give" },
  },
  examples: [
    "harness-tool init",
    "harness-tool init notes --source github.com/acme/provider-notes --yes",
    "harness-tool init notes --examples data_source,resource --yes",
    "harness-tool init notes --examples data_source,hook --yes",
    "harness-tool init notes --harness-tool file:/tmp/harness-tool-tarballs",
  ],
  run: ({ values, positionals }, streams) =>
    initCommand(
      {
        dir: positionals[0],
        name: values.name,
        source: values.source,
        harnessTool: values["harness-tool"],
        examples: values.examples,
        force: values.force,
        yes: values.yes,
      },
      streams,
    ),
});
