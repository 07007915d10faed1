/**
 * The files `harness-tool init` writes: a provider repository that works with nothing but the npm
 * registry. They are real files under cli/templates/ (shipped in the package): `provider/` is the
 * repository with `{{placeholders}}`, and `example-tools/<example>/` holds each example tool's
 * pieces (its rpc, its messages, its handler, its test, what its handler needs declared or
 * imported, with the repository's name filled in), so any subset of the examples makes a
 * consistent repository.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "./cli-package.js";
import { fillTemplate, templateFiles, type TemplateValues } from "./fill-template.js";
import { protobufVersion, type PackageSpecs } from "./package-sources.js";

/**
 * The examples a new repository can start with: a tool of each kind, and `hook`, hook
 * subscriptions beside them (a plan-ready veto and a post-tool-call observer).
 */
export const exampleNames = ["data_source", "resource", "process", "interactive", "hook"] as const;

/** The examples that are tools: a repository needs at least one (a provider serves tools). */
export const toolExampleNames = exampleNames.filter((name) => name !== "hook");

/** One of exampleNames. */
export type ExampleName = (typeof exampleNames)[number];

/** What init was asked for. */
export interface ScaffoldSpec {
  /** snake_case, e.g. "notes": the proto package notes.v1, the service NotesService. */
  readonly name: string;
  /** ProducerRef.source, e.g. "github.com/acme/provider-notes". */
  readonly source: string;
  readonly examples: readonly ExampleName[];
  /** Where harness-tool's packages are installed from (cli/templates/package-sources.ts). */
  readonly packages: PackageSpecs;
  /** The repository's absolute path. */
  readonly directory: string;
}

/** The folder holding the templates: cli/templates in a checkout, templates/ in the installed package. */
export function templatesFolder(): string {
  return path.join(packageRoot(), "templates");
}

/** snake_case → PascalCase. */
export function pascalCase(name: string): string {
  return name
    .split("_")
    .filter((p) => p !== "")
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join("");
}

/** The pieces of one example, each a file of example-tools/<example>/ ("" when it has none). */
interface ExamplePieces {
  readonly rpc: string;
  readonly messages: string;
  /** Lines of the service's `(harnesstool.v1.provider)` option. */
  readonly providerOption: string;
  readonly handler: string;
  readonly test: string;
  readonly testImports: string;
  readonly imports: string;
  readonly declarations: string;
  /** The tool's row of the docs index's table, as harness-tool docs writes it. */
  readonly docsRow: string;
  /** The lines of the docs index's hook points list. */
  readonly docsHookPoints: string;
  /** Whole files of the new repository (the tool's page under docs/tools/), by relative path. */
  readonly files: ReadonlyMap<string, string>;
}

/**
 * The pieces of `example`, each with the repository's own placeholders filled (`{{name}}` in an
 * import of the generated module); a piece naming any other placeholder throws, naming its file.
 */
function examplePieces(example: ExampleName, values: TemplateValues): ExamplePieces {
  const folder = path.join(templatesFolder(), "example-tools", example);
  const piece = (file: string) =>
    existsSync(path.join(folder, file))
      ? fillTemplate(readFileSync(path.join(folder, file), "utf8"), values, `example-tools/${example}/${file}`)
      : "";
  return {
    rpc: piece("rpc.proto"),
    messages: piece("messages.proto"),
    providerOption: piece("provider-option.proto"),
    handler: piece("handler.ts"),
    test: piece("test.ts"),
    testImports: piece("test-imports.ts"),
    imports: piece("imports.ts"),
    declarations: piece("declarations.ts"),
    docsRow: piece("docs-row.md").trimEnd(),
    docsHookPoints: piece("docs-hook-points.md").trimEnd(),
    files: existsSync(path.join(folder, "files")) ? templateFiles(path.join(folder, "files")) : new Map(),
  };
}

/** The docs index's hook points section when no example subscribes to one (harness-tool docs' wording). */
const noHookPoints = "The provider subscribes to no hook point.";

/**
 * The options the scaffold gives protoc-gen-harness-tool, as its buf.gen.yaml lists them under
 * `opt:`: JavaScript with declarations, which cost an author's type-check the least
 * (bench/RESULTS.md, type-check: target=js+dts against target=ts on the same repository).
 */
export function scaffoldPluginOptions(): string[] {
  const bufGen = readFileSync(path.join(templatesFolder(), "provider/buf.gen.yaml"), "utf8");
  const opt = bufGen.slice(bufGen.indexOf("\n    opt:\n") + "\n    opt:\n".length);
  return [...opt.matchAll(/^ {6}- (\S+)$/gm)].map((m) => m[1] as string);
}

/** The command the README suggests after the build: a call of the first example that has one. */
function exampleCall(examples: readonly ExampleName[]): string {
  if (examples.includes("data_source"))
    return `npx harness-tool invoke dist/provider.mjs read_note --config dev-config.json --args '{"title": "hello"}'`;
  if (examples.includes("process"))
    return `npx harness-tool invoke dist/provider.mjs run_command --config dev-config.json --args '{"command": "ls", "args": ["-la"]}'`;
  return "npx harness-tool schema dist/provider.mjs";
}

/** The README's line firing the hook example's veto by hand. */
const hookCall = `# the hook example's plan-ready veto, fired by hand as the kernel fires it
echo '{"plan": {"items": [{"id": "1", "toolName": "save_note", "input": {"path": "/etc/passwd"}}]}}' > plan.json
npx harness-tool hook dist/provider.mjs plan-ready --mode veto --payload plan.json --config dev-config.json
`;

/** The value of every placeholder of provider/ for `spec`. */
function templateValues(spec: ScaffoldSpec): TemplateValues {
  const names = {
    name: spec.name,
    pascal: pascalCase(spec.name),
    dashName: spec.name.replace(/_/g, "-"),
    upperName: spec.name.toUpperCase(),
    source: spec.source,
  };
  const pieces = spec.examples.map((example) => examplePieces(example, names));
  // harness-tool docs lists the tools by name, and each row begins with it.
  const docsRows = pieces.map((p) => p.docsRow).filter((row) => row !== "");
  const joined = (key: Exclude<keyof ExamplePieces, "files">, separator: string) =>
    pieces
      .map((p) => p[key])
      .filter((text) => text !== "")
      .join(separator);
  // data_source and resource share the notes map: each declaration once, after a blank line.
  const declarations = [...new Set(pieces.map((p) => p.declarations).filter((text) => text !== ""))]
    .map((text) => `\n${text}`)
    .join("");
  return {
    ...names,
    protobufVersion,
    runtimeSpec: spec.packages.runtime,
    pluginSpec: spec.packages.plugin,
    cliSpec: spec.packages.cli,
    rpcs: joined("rpc", "\n"),
    messages: joined("messages", "\n"),
    providerOptions: joined("providerOption", ""),
    testImports: joined("testImports", ""),
    imports: joined("imports", ""),
    declarations,
    handlers: joined("handler", ""),
    tests: joined("test", "\n"),
    exampleCall: exampleCall(spec.examples),
    hookCall: spec.examples.includes("hook") ? hookCall : "",
    docsToolRows: docsRows.sort((a, b) => a.localeCompare(b)).join("\n"),
    docsHookPoints: joined("docsHookPoints", "\n") || noHookPoints,
  };
}

/** Every file of the new repository, by relative path. */
export function scaffoldFiles(spec: ScaffoldSpec): Map<string, string> {
  const values = templateValues(spec);
  const files = new Map<string, string>();
  for (const [template, text] of templateFiles(path.join(templatesFolder(), "provider"))) {
    const file = fillTemplate(template, values, template);
    files.set(file, fillTemplate(text, values, file));
  }
  // The examples' own files: their pages of the reference docs, which harness-tool docs --check holds equal.
  for (const example of spec.examples) {
    for (const [template, text] of examplePieces(example, values).files) {
      const file = fillTemplate(template, values, template);
      files.set(file, fillTemplate(text, values, file));
    }
  }
  return files;
}
