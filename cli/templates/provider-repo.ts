/**
 * The files `harness-tool init` writes: a provider repository that works with nothing but the
 * npm registry. Each example tool is one fragment of the proto, one handler and one test, so any
 * subset of them makes a consistent repository.
 */
import { harnessToolPackages, protobufVersion, type PackageSpecs } from "./package-sources.js";

/** The example tools a new repository can start with, one per kind of tool. */
export const exampleNames = ["data_source", "resource", "process", "interactive"] as const;

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
  /** The repository's absolute path: the root dev-config.json allows. */
  readonly directory: string;
}

/** snake_case → PascalCase. */
export function pascalCase(name: string): string {
  return name
    .split("_")
    .filter((p) => p !== "")
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join("");
}

interface ExampleParts {
  rpc: string;
  messages: string;
  handler: string;
  test: string;
  imports?: string;
}

function exampleParts(example: ExampleName): ExampleParts {
  switch (example) {
    case "data_source":
      return {
        rpc: `  // Reads a note by its title.
  rpc ReadNote(ReadNoteRequest) returns (ReadNoteResponse) {
    option (harnesstool.v1.tool) = {
      kind: TOOL_KIND_DATA_SOURCE
      risk: RISK_CLASS_READ_ONLY
      concurrency: {safe: true}
      idempotent: true
      default_timeout: {seconds: 5}
    };
  }
`,
        messages: `// Which note to read.
message ReadNoteRequest {
  // The note's title.
  string title = 1;
}

// The note.
message ReadNoteResponse {
  // Whether a note with that title exists.
  bool found = 1;
  // The note's text; empty when it does not exist.
  string text = 2;
}
`,
        handler: `  async readNote(input) {
    const text = notes.get(input.title);
    return { found: text !== undefined, text: text ?? "" };
  },
`,
        test: `  it("reads a note that does not exist", async () => {
    const call = provider.invoke({ id: "1", toolName: "read_note", arguments: { title: "nothing" }, callContext });
    const { events } = await call.done;
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.event.case === "result" && events[0].event.value.payload, { found: false, text: "" });
  });

  it("refuses arguments that do not match the input schema", async () => {
    const { events } = await provider.invoke({ id: "2", toolName: "read_note", arguments: { title: 42 }, callContext }).done;
    assert.equal(events[0]?.event.case, "error");
  });
`,
      };
    case "resource":
      return {
        rpc: `  // Saves a note, replacing any note with the same title.
  rpc SaveNote(SaveNoteRequest) returns (SaveNoteResponse) {
    option (harnesstool.v1.tool) = {
      kind: TOOL_KIND_RESOURCE
      risk: RISK_CLASS_LOW
      // Saves of the same title run one at a time; different titles run in parallel.
      concurrency: {safe: true, key_fields: ["title"]}
      idempotent: true
      default_timeout: {seconds: 5}
    };
  }
`,
        messages: `// The note to save.
message SaveNoteRequest {
  // The note's title: its key.
  string title = 1;
  // The note's text.
  string text = 2;
}

// What saving did.
message SaveNoteResponse {
  // True when a note with that title was replaced.
  bool replaced = 1;
}
`,
        handler: `  async saveNote(input, context) {
    const replaced = notes.has(input.title);
    notes.set(input.title, input.text);
    context.log.info("saved a note", { title: input.title, replaced });
    return { replaced };
  },
`,
        test: `  it("saves a note", async () => {
    const { events } = await provider.invoke({ id: "3", toolName: "save_note", arguments: { title: "a", text: "b" }, callContext }).done;
    assert.deepEqual(events[0]?.event.case === "result" && events[0].event.value.payload, { replaced: false });
  });
`,
      };
    case "process":
      return {
        rpc: `  // Runs a command (no shell), streaming its output as it arrives.
  rpc RunCommand(RunCommandRequest) returns (RunCommandResponse) {
    option (harnesstool.v1.tool) = {
      kind: TOOL_KIND_RESOURCE
      risk: RISK_CLASS_HIGH
      process_backed: true
      concurrency: {safe: false}
      idempotent: false
      default_timeout: {seconds: 60}
    };
  }
`,
        messages: `// The command to run.
message RunCommandRequest {
  // The executable, e.g. "ls".
  string command = 1;
  // Its arguments.
  repeated string args = 2;
}

// How the command ended; its output was streamed.
message RunCommandResponse {
  // The exit code; -1 when a signal ended the command.
  int32 exit_code = 1;
}
`,
        handler: `  async runCommand(input, context) {
    const exit = await context.spawn(input.command, input.args);
    return { exit_code: exit.exitCode };
  },
`,
        test: `  it("streams a command's output, then its exit status and result", async () => {
    const { events } = await provider.invoke({ id: "4", toolName: "run_command", arguments: { command: "echo", args: ["hello"] }, callContext }).done;
    const cases = events.map((e) => e.event.case);
    assert.ok(cases.includes("outputChunk"));
    assert.equal(cases.filter((c) => c === "exitStatus").length, 1);
    assert.equal(cases.at(-1), "result");
  });
`,
      };
    case "interactive":
      return {
        rpc: `  // Asks the user a question and waits for the answer. The kernel runs interactive calls one
  // at a time and never puts them behind plan/apply approval.
  rpc AskUser(AskUserRequest) returns (AskUserResponse) {
    option (harnesstool.v1.tool) = {
      kind: TOOL_KIND_INTERACTIVE
      risk: RISK_CLASS_READ_ONLY
      idempotent: false
      default_timeout: {seconds: 600}
    };
  }
`,
        messages: `// The question.
message AskUserRequest {
  // What to ask.
  string question = 1;
}

// The answer.
message AskUserResponse {
  // The user's answer.
  string answer = 1;
}
`,
        handler: `  async askUser(input, context) {
    // A real provider reaches its user here (a terminal, a chat, a web form). This example reads
    // one line from the terminal the provider was started from, when there is one.
    context.log.info("asking the user", { question: input.question });
    return { answer: await readAnswer(input.question, context.signal) };
  },
`,
        imports: `import { createInterface } from "node:readline/promises";
`,
        test: "",
      };
  }
}

/**
 * The options the scaffold gives protoc-gen-harness-tool: JavaScript with declarations, which
 * cost an author's type-check the least (bench/RESULTS.md, type-check: target=js+dts against
 * target=ts on the same repository).
 */
export const scaffoldPluginOptions = ["target=js+dts", "import_extension=js"] as const;

/**
 * The scaffold's buf.gen.yaml: protoc-gen-harness-tool alone (nothing generated imports
 * protoc-gen-es's output), with scaffoldPluginOptions.
 */
export const scaffoldBufGen = `# protoc-gen-harness-tool writes the typed provider into src/gen: JavaScript with declarations
# (target=js+dts) that state every type, so type-checking reads them and infers nothing. The
# kernel's and harness-tool's wire types come from harness-tool. protoc-gen-es is not needed:
# nothing generated imports its message classes (add it beside this plugin to have them).
version: v2
inputs:
  - directory: proto
plugins:
  - local: protoc-gen-harness-tool
    out: src/gen
    opt:
${scaffoldPluginOptions.map((o) => `      - ${o}`).join("\n")}
clean: true
`;

/** Every file of the new repository, by relative path. */
export function scaffoldFiles(spec: ScaffoldSpec): Map<string, string> {
  const { name, source } = spec;
  const pascal = pascalCase(name);
  const parts = spec.examples.map(exampleParts);
  const files = new Map<string, string>();
  const hasProcess = spec.examples.includes("process");
  const hasInteractive = spec.examples.includes("interactive");
  const needsNotes = spec.examples.includes("data_source") || spec.examples.includes("resource");

  files.set(
    "package.json",
    `${JSON.stringify(
      {
        name: `provider-${name.replace(/_/g, "-")}`,
        version: "0.1.0",
        private: true,
        type: "module",
        engines: { node: ">=20.12" },
        bin: { [`provider-${name.replace(/_/g, "-")}`]: "dist/provider.mjs" },
        scripts: {
          generate: "buf generate",
          // tsc type-checks everything and compiles the tests; the provider is bundled from its
          // sources (src/gen is JavaScript with declarations) into one file, which starts as fast
          // as a bare gRPC server and is what the kernel launches.
          build: "tsc -p tsconfig.json && harness-tool bundle src/main.ts --outfile dist/provider.mjs",
          // The shell expands the pattern: Node 20's --test takes files and folders, Node 22's
          // takes files and globs but no folder.
          test: "node --test dist/test/*.test.js",
          check: "harness-tool check dist/provider.mjs --config dev-config.json",
        },
        // The runtime is all the provider needs to run; generated code imports @bufbuild/protobuf,
        // the runtime's peer. The plugin and the CLI are for building and testing it.
        dependencies: { "@bufbuild/protobuf": `^${protobufVersion}`, [harnessToolPackages.runtime]: spec.packages.runtime },
        devDependencies: {
          [harnessToolPackages.cli]: spec.packages.cli,
          [harnessToolPackages.plugin]: spec.packages.plugin,
          "@bufbuild/buf": "1.75.0",
          "@types/node": "^20.19.0",
          typescript: "~5.9.3",
        },
        // npm 11 reviews dependency install scripts (npm 12 blocks the unreviewed): buf's and
        // esbuild's check their native binaries; protobufjs's only prints a version warning.
        allowScripts: { "@bufbuild/buf": true, esbuild: true, protobufjs: false },
      },
      null,
      2,
    )}\n`,
  );

  files.set(
    "buf.yaml",
    `# The buf workspace: this provider's protos, plus the ones the plugin package ships (harness-tool's
# annotations and the kernel's wire contract) straight from node_modules. No registry is needed.
version: v2
modules:
  - path: proto
  - path: node_modules/${harnessToolPackages.plugin}/proto
`,
  );

  files.set("buf.gen.yaml", scaffoldBufGen);

  files.set(
    "tsconfig.json",
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023"],
          types: ["node"],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          skipLibCheck: true,
          resolveJsonModule: true,
          outDir: "dist",
          rootDir: ".",
          sourceMap: true,
        },
        include: ["src", "test"],
      },
      null,
      2,
    )}\n`,
  );

  files.set(".gitignore", "node_modules/\ndist/\n");
  // What the kernel would pass to Configure from agent.hcl, for local runs of invoke and check.
  files.set("dev-config.json", `${JSON.stringify({ roots: [spec.directory] }, null, 2)}\n`);

  files.set(
    `proto/${name}/v1/${name}.proto`,
    `// The ${name} tool provider for the PluggableHarness kernel.
syntax = "proto3";

package ${name}.v1;

import "harnesstool/v1/annotations.proto";

// The ${name} provider's tools.
service ${pascal}Service {
  option (harnesstool.v1.provider) = {
    source: "${source}"
    config: "${pascal}Config"
  };

${parts.map((p) => p.rpc).join("\n")}}

// The provider's agent.hcl block.
message ${pascal}Config {
  // Absolute paths of the folders the tools may touch: the provider's capability boundary.
  repeated string roots = 1;
  // A token for a service the provider calls. A secret: never echoed in errors, logs or events.
  optional string api_token = 2 [(harnesstool.v1.field).sensitive = true];
}

${parts.map((p) => p.messages).join("\n")}`,
  );

  const genModule = `./gen/${name}/v1/${name}_tool.js`;
  files.set(
    "src/handlers.ts",
    `// The ${name} provider's tools. The generated ${pascal}Handlers interface types every input, output
// and context; \`npx harness-tool sync src/handlers.ts\` adds a handler when a tool is added to the proto.
${parts.map((p) => p.imports ?? "").join("")}import type { ${pascal}Handlers } from "${genModule}";
${needsNotes ? "\n/** The notes, kept in memory for the life of the process. */\nconst notes = new Map<string, string>();\n" : ""}${
  hasInteractive
    ? `
/** Asks on the terminal the provider was started from; without one, answers that nobody is there. */
async function readAnswer(question: string, signal: AbortSignal): Promise<string> {
  if (!process.stdin.isTTY) return "(no user is attached to this provider)";
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await terminal.question(\`\${question} \`, { signal });
  } finally {
    terminal.close();
  }
}
`
    : ""
}
/** The handlers, one per tool. */
export const handlers: ${pascal}Handlers = {
${parts.map((p) => p.handler).join("")}};
`,
  );

  files.set(
    "src/main.ts",
    `#!/usr/bin/env node
// The provider's executable: the kernel starts it directly (no shell, no npx) and talks to it
// through go-plugin. Nothing but the handshake line may go to stdout; console output goes to stderr.
import { serve } from "harness-tool";
import packageJson from "../package.json" with { type: "json" };
import { create${pascal}Provider } from "${genModule}";
import { handlers } from "./handlers.js";

// Describe reports package.json's version (bundled into dist/provider.mjs at build time).
await serve(create${pascal}Provider(handlers, { version: packageJson.version, allowedRoots: (config) => config.roots }));
`,
  );

  files.set(
    "test/provider.test.ts",
    `// Launches the built provider (dist/provider.mjs) exactly as the kernel does (go-plugin handshake, broker, Shutdown)
// and calls its tools. Run \`npm run build\` first; \`npm test\` runs the compiled tests.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { launch, type LaunchedProvider } from "harness-tool/testing";
import packageJson from "../package.json" with { type: "json" };
import { handlers } from "../src/handlers.js";

const entry = fileURLToPath(new URL("../provider.mjs", import.meta.url));
const callContext = { sessionId: "test-session", turnId: "1", workingDirectory: process.cwd() };

describe("the ${name} provider", () => {
  let provider: LaunchedProvider;
  before(async () => {
    provider = await launch(entry);
    await provider.configure({ roots: [process.cwd()], api_token: "not-a-real-token" });
  });
  after(async () => {
    const report = await provider.kill();
    assert.ok(report.graceful, "the provider should exit by itself on Shutdown");
  });

  it("serves a tool for every handler, and a handler for every tool", async () => {
    const schema = await provider.getSchema();
    // Handlers are the tools' names in lowerCamelCase: read_note -> readNote.
    const handlerTools = Object.keys(handlers).map((key) => key.replace(/[A-Z]/g, (c) => \`_\${c.toLowerCase()}\`));
    assert.ok(schema.tools.length > 0);
    assert.deepEqual(schema.tools.map((t) => t.name).sort(), handlerTools.sort());
  });

  it("reports package.json's version in Describe", async () => {
    const { producer } = await provider.describe();
    assert.equal(producer?.version, packageJson.version);
  });

${parts
  .map((p) => p.test)
  .filter((t) => t !== "")
  .join("\n")}});
`,
  );

  const exampleCall = spec.examples.includes("data_source")
    ? `npx harness-tool invoke dist/provider.mjs read_note --config dev-config.json --args '{"title": "hello"}'`
    : hasProcess
      ? `npx harness-tool invoke dist/provider.mjs run_command --config dev-config.json --args '{"command": "ls", "args": ["-la"]}'`
      : `npx harness-tool schema dist/provider.mjs`;
  files.set(
    "README.md",
    `# provider-${name.replace(/_/g, "-")}

A tool provider for the PluggableHarness kernel, built with harness-tool.

- \`proto/${name}/v1/${name}.proto\` declares the tools (rpcs annotated with \`(harnesstool.v1.tool)\`) and the
  provider's configuration.
- \`npm run generate\` runs \`buf generate\`: protoc-gen-harness-tool writes \`src/gen/\`, JavaScript with
  declarations that state every type (the compiler infers nothing from them).
- \`src/handlers.ts\` implements the generated \`${pascal}Handlers\`; \`src/main.ts\` is the provider's entry.
  \`npm run build\` type-checks with tsc (and compiles the tests), then bundles \`src/main.ts\` into
  \`dist/provider.mjs\`, the one executable file the kernel launches (bundled, it starts about twice
  as fast as separate modules). tsc's own output of \`src/\` is not used: it lacks the generated
  JavaScript, which tsc does not copy.
- \`npm test\` launches the built provider through the go-plugin handshake (\`harness-tool/testing\`).
- \`npm run check\` runs harness-tool's conformance suite against it, configured with \`dev-config.json\`.

## Commands

\`\`\`sh
npm install
npm run generate && npm run build && npm test
npm run check
${exampleCall}
\`\`\`

After adding a tool to the proto: \`npm run generate\`, then \`npx harness-tool sync src/handlers.ts\` adds its
handler with the right signature.
`,
  );
  return files;
}
