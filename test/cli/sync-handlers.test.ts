// `harness-tool sync` adds the handlers a new tool needs, touches nothing else, is idempotent, and
// reports (never deletes) handlers whose tool is gone.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { main } from "../../cli/main.js";
import { syncCommand } from "../../cli/commands/sync-command.js";
import { syncHandlers } from "../../cli/sync/sync-handlers.js";
import { repoRoot } from "../support/buf.js";
import { captureStream } from "../support/captured-stream.js";

const generatedBefore = `import type { ToolContext, StreamingToolContext } from "harness-tool";
/** Reads. */
export interface ReadFileInput { path: string }
export interface ReadFileOutput { content: string }
export interface FsConfig { roots: string[] }
export interface FsHandlers {
  /** Reads a file. */
  readFile(input: ReadFileInput, ctx: ToolContext<FsConfig>): Promise<ReadFileOutput>;
}
`;

const generatedAfter = generatedBefore.replace(
  "}\n`".slice(0, 0) + "  readFile(input: ReadFileInput, ctx: ToolContext<FsConfig>): Promise<ReadFileOutput>;\n}",
  `  readFile(input: ReadFileInput, ctx: ToolContext<FsConfig>): Promise<ReadFileOutput>;
  /** Searches files. */
  grepFiles(input: GrepInput, ctx: StreamingToolContext<FsConfig>): Promise<GrepOutput>;
}
export interface GrepInput { pattern: string; paths?: string[] }
export interface GrepOutput { matches: { path: string; line: number }[] }`,
);

const handlersSource = `// Hand-written handlers: comments, helpers and formatting here must survive sync.
import { readFile } from "node:fs/promises";
import type { FsHandlers } from "./fs_tool.js";

/** A helper of the author's own. */
function decode(bytes: Buffer): string {
  return bytes.toString("utf8"); // keep this comment
}

export const handlers: FsHandlers = {
  // Reads within the roots.
  async readFile(input, ctx) {
    const content = decode(await readFile(ctx.resolvePath(input.path)));
    return { content };
  },
};

export const unrelated = { a: 1 };
`;

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
    customConditions: ["harness-tool-source"],
  },
  include: ["src"],
};

describe("harness-tool sync", () => {
  let dir = "";
  let handlersPath = "";
  const typecheck = () =>
    spawnSync("node", [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", dir, "--pretty", "false"], {
      encoding: "utf8",
    });

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-sync-"));
    mkdirSync(path.join(dir, "src"));
    mkdirSync(path.join(dir, "node_modules/@types"), { recursive: true });
    symlinkSync(path.join(repoRoot, "runtime"), path.join(dir, "node_modules/harness-tool"));
    symlinkSync(path.join(repoRoot, "node_modules/@types/node"), path.join(dir, "node_modules/@types/node"));
    symlinkSync(path.join(repoRoot, "node_modules/@bufbuild"), path.join(dir, "node_modules/@bufbuild"));
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(path.join(dir, "src/fs_tool.ts"), generatedBefore);
    handlersPath = path.join(dir, "src/handlers.ts");
    writeFileSync(handlersPath, handlersSource);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("changes nothing when the handlers are complete", () => {
    const report = syncHandlers(handlersPath, { tsConfigFilePath: path.join(dir, "tsconfig.json") });
    assert.equal(report.changed, false);
    assert.deepEqual(report.objects, [{ interfaceName: "FsHandlers", added: [], stale: [] }]);
    assert.equal(typecheck().status, 0, typecheck().stdout);
  });

  it("adds the new tool's handler with its typed signature, leaving every other line as it was", () => {
    writeFileSync(path.join(dir, "src/fs_tool.ts"), generatedAfter);
    assert.notEqual(typecheck().status, 0, "the handlers object should now be missing grepFiles");
    const report = syncHandlers(handlersPath, { tsConfigFilePath: path.join(dir, "tsconfig.json") });
    assert.equal(report.changed, true);
    assert.deepEqual(report.objects[0]?.added, ["grepFiles"]);
    const after = readFileSync(handlersPath, "utf8");
    assert.match(
      after,
      /async grepFiles\(_input: GrepInput, _ctx: StreamingToolContext<FsConfig>\): Promise<GrepOutput> \{/,
    );
    assert.match(after, /throw new ToolError\("execution_failed", "grepFiles is not implemented yet/);
    // Every other original line is still there, in order. The generated module's names join its
    // existing import; harness-tool, not imported yet, gets one new line; then the stub.
    const importLine = 'import type { FsHandlers } from "./fs_tool.js";';
    const before = handlersSource.split("\n").filter((l) => l !== importLine);
    const now = after.split("\n");
    let j = 0;
    const added: string[] = [];
    for (const line of now) {
      if (j < before.length && line === before[j]) j++;
      else added.push(line);
    }
    assert.equal(j, before.length, "an original line was changed or removed");
    assert.deepEqual(added.slice(0, 2), [
      'import type { FsHandlers, FsConfig, GrepInput, GrepOutput } from "./fs_tool.js";',
      'import { ToolError, type StreamingToolContext } from "harness-tool";',
    ]);
    assert.equal(added.length, 5);
    const check = typecheck();
    assert.equal(check.status, 0, check.stdout);
  });

  it("is idempotent", () => {
    const text = readFileSync(handlersPath, "utf8");
    const report = syncHandlers(handlersPath, { tsConfigFilePath: path.join(dir, "tsconfig.json") });
    assert.equal(report.changed, false);
    assert.equal(readFileSync(handlersPath, "utf8"), text);
  });

  it("a second new tool's names join the imports the first sync wrote, adding no import line", () => {
    const generated = readFileSync(path.join(dir, "src/fs_tool.ts"), "utf8");
    writeFileSync(
      path.join(dir, "src/fs_tool.ts"),
      generated.replace(
        "  grepFiles(",
        "  /** Lists a folder. */\n  listDir(input: ListDirInput, ctx: ToolContext<FsConfig>): Promise<ListDirOutput>;\n  grepFiles(",
      ) + "export interface ListDirInput { path: string }\nexport interface ListDirOutput { names: string[] }\n",
    );
    const importsBefore = readFileSync(handlersPath, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("import ")).length;
    const report = syncHandlers(handlersPath, { tsConfigFilePath: path.join(dir, "tsconfig.json") });
    assert.deepEqual(report.objects[0]?.added, ["listDir"]);
    const after = readFileSync(handlersPath, "utf8");
    assert.equal(after.split("\n").filter((l) => l.startsWith("import ")).length, importsBefore);
    assert.match(
      after,
      /^import type \{ FsHandlers, FsConfig, GrepInput, GrepOutput, ListDirInput, ListDirOutput \} from "\.\/fs_tool\.js";$/m,
    );
    assert.match(after, /^import \{ ToolError, type StreamingToolContext, type ToolContext \} from "harness-tool";$/m);
    const check = typecheck();
    assert.equal(check.status, 0, check.stdout);
    // And once more: nothing changes.
    assert.equal(syncHandlers(handlersPath, { tsConfigFilePath: path.join(dir, "tsconfig.json") }).changed, false);
  });

  it("points at docs/hooks.md for the hooks a proto's supported_hook_points now asks for", () => {
    const hooked = path.join(dir, "src/hooked.ts");
    writeFileSync(
      path.join(dir, "src/hooked_tool.ts"),
      `import type { HookSubscriptionsFor, ToolContext } from "harness-tool";\nexport interface HookedConfig { root: string }\nexport interface HookedHandlers {\n  ping(input: Record<string, never>, ctx: ToolContext<HookedConfig>): Promise<{ pong: boolean }>;\n  readonly hooks: HookSubscriptionsFor<"plan-ready", HookedConfig>;\n}\n`,
    );
    writeFileSync(
      hooked,
      `import type { HookedHandlers } from "./hooked_tool.js";\n\nexport const handlers: HookedHandlers = {\n  async ping() {\n    return { pong: true };\n  },\n};\n`,
    );
    const report = syncHandlers(hooked, { tsConfigFilePath: path.join(dir, "tsconfig.json") });
    assert.deepEqual(report.objects[0]?.added, ["hooks"]);
    assert.match(
      readFileSync(hooked, "utf8"),
      /^ {2}\/\/ harness-tool sync: add hooks, the subscriptions of supported_hook_points \(HookSubscriptionsFor<"plan-ready", HookedConfig>\): per point, observe, veto or transform \(docs\/hooks\.md\)$/m,
    );
    rmSync(hooked);
    rmSync(path.join(dir, "src/hooked_tool.ts"));
  });

  it("reports handlers whose tool is gone, keeps them, and exits 1 (the build fails until they go)", async () => {
    writeFileSync(
      path.join(dir, "src/fs_tool.ts"),
      generatedAfter.replace(/ {2}\/\*\* Reads a file\. \*\/\n {2}readFile\(.*\n/, ""),
    );
    const text = readFileSync(handlersPath, "utf8");
    const report = syncHandlers(handlersPath, { tsConfigFilePath: path.join(dir, "tsconfig.json") });
    assert.deepEqual(report.objects[0]?.stale, ["readFile", "listDir"]);
    assert.equal(report.changed, false);
    assert.equal(readFileSync(handlersPath, "utf8"), text);
    const out = captureStream();
    const err = captureStream();
    assert.equal(await main(["sync", handlersPath], { out: out.stream, err: err.stream }), 1, err.text());
    assert.doesNotMatch(out.text(), /up to date/);
    assert.match(
      out.text(),
      /FsHandlers: nothing to add\n.*readFile has no tool any more; the build fails until you remove it/,
    );
  });

  it("a file with no handlers object: exit 2, naming the file to give", async () => {
    const main_ = path.join(dir, "src/main.ts");
    writeFileSync(main_, 'import { handlers } from "./handlers.js";\nconsole.error(Object.keys(handlers));\n');
    const out = captureStream();
    const err = captureStream();
    assert.equal(await main(["sync", main_], { out: out.stream, err: err.stream }), 2);
    assert.match(
      err.text(),
      /^harness-tool sync: \S+main\.ts has no object typed as a generated \.\.\.Handlers interface .*: name the file that holds it, e\.g\. src\/handlers\.ts\n$/,
    );
  });
});

describe("generated code older than its protos", () => {
  let dir = "";
  const proto = () => path.join(dir, "proto/notes/v1/notes.proto");
  const run = async (argv: string[], options: { cwd?: string } = {}) => {
    const out = captureStream();
    const err = captureStream();
    const { checkGenerated, recordGenerated } = {
      checkGenerated: argv.includes("--check-generated"),
      recordGenerated: argv.includes("--record-generated"),
    };
    const files = argv.filter((a) => !a.startsWith("--"));
    const code = await syncCommand(files, {
      dryRun: false,
      checkGenerated,
      recordGenerated,
      cwd: options.cwd ?? dir,
      out: out.stream,
      err: err.stream,
    });
    return { code, out: out.text(), err: err.text() };
  };

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-stamp-"));
    // The scaffold's layout: buf.gen.yaml's input directory and the plugin's out folder.
    writeFileSync(
      path.join(dir, "buf.gen.yaml"),
      "version: v2\ninputs:\n  - directory: proto\nplugins:\n  - local: protoc-gen-harness-tool\n    out: src/gen\n    opt:\n      - target=js+dts\nclean: true\n",
    );
    mkdirSync(path.join(dir, "proto/notes/v1"), { recursive: true });
    mkdirSync(path.join(dir, "src/gen/notes/v1"), { recursive: true });
    writeFileSync(
      proto(),
      'syntax = "proto3";\npackage notes.v1;\nservice NotesService {\n  rpc ReadNote(ReadNoteRequest) returns (ReadNoteResponse);\n}\n',
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("records the protos after generating; the check passes until a proto changes, then names it and npm run generate", async () => {
    const unrecorded = await run(["--check-generated"]);
    assert.equal(unrecorded.code, 1);
    assert.equal(
      unrecorded.err,
      "harness-tool sync: src/gen/ does not say which protos it was generated from (no generated-from.json): run npm run generate\n",
    );
    assert.deepEqual(await run(["--record-generated"]), {
      code: 0,
      out: "recorded the protos src/gen/generated-from.json was generated from\n",
      err: "",
    });
    assert.deepEqual(
      await run(["--check-generated"], { cwd: path.join(dir, "src") }),
      { code: 0, out: "", err: "" },
      "found from a folder below",
    );
    // An rpc added without npm run generate.
    writeFileSync(
      proto(),
      readFileSync(proto(), "utf8").replace(
        "}\n",
        "  rpc CountNotes(CountNotesRequest) returns (CountNotesResponse);\n}\n",
      ),
    );
    const stale = await run(["--check-generated"]);
    assert.equal(stale.code, 1);
    assert.equal(
      stale.err,
      "harness-tool sync: src/gen/ is older than its protos (proto/notes/v1/notes.proto changed since it was generated): run npm run generate\n",
    );
    // A proto file added and one removed are named too.
    writeFileSync(path.join(dir, "proto/notes/v1/extra.proto"), 'syntax = "proto3";\n');
    assert.match(
      (await run(["--check-generated"])).err,
      /notes\.proto changed; proto\/notes\/v1\/extra\.proto added since/,
    );
    await run(["--record-generated"]);
    rmSync(path.join(dir, "proto/notes/v1/extra.proto"));
    assert.match(
      (await run(["--check-generated"])).err,
      /\(proto\/notes\/v1\/extra\.proto removed since it was generated\)/,
    );
    await run(["--record-generated"]);
    assert.equal((await run(["--check-generated"])).code, 0);
  });

  it("the same bytes are the same protos: rewriting a proto unchanged (a git checkout) is not stale", async () => {
    await run(["--record-generated"]);
    writeFileSync(proto(), readFileSync(proto()));
    assert.equal((await run(["--check-generated"])).code, 0);
  });

  it("a missing generated folder names npm run generate; the flags take no handlers file and need a buf.gen.yaml", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "harness-tool-stamp-none-"));
    try {
      writeFileSync(path.join(empty, "buf.gen.yaml"), "version: v2\ninputs:\n  - directory: protos\n");
      assert.deepEqual(await run(["--check-generated"], { cwd: empty }), {
        code: 1,
        out: "",
        err: "harness-tool sync: src/gen/ is missing: run npm run generate first (buf generate writes it from protos/)\n",
      });
      await assert.rejects(
        run(["--record-generated"], { cwd: empty }),
        /src\/gen\/ does not exist: run buf generate first/,
      );
      rmSync(path.join(empty, "buf.gen.yaml"));
      await assert.rejects(run(["--check-generated"], { cwd: empty }), /no buf\.gen\.yaml here or above/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    await assert.rejects(run(["--check-generated", "src/handlers.ts"]), /take no handlers file/);
  });

  it("sync of a handlers file adds nothing and never says up to date while the generated code is stale", async () => {
    const handlers = path.join(dir, "src/handlers.ts");
    writeFileSync(handlers, "export const handlers = {};\n");
    await run(["--record-generated"]);
    writeFileSync(proto(), `${readFileSync(proto(), "utf8")}// a change\n`);
    const stale = await run([handlers]);
    assert.equal(stale.code, 1);
    assert.equal(stale.out, "");
    assert.equal(
      stale.err,
      "harness-tool sync: src/gen/ is older than its protos (proto/notes/v1/notes.proto changed since it was generated): run npm run generate, then sync again\n",
    );
    assert.equal(readFileSync(handlers, "utf8"), "export const handlers = {};\n");
    // Without a record (plain buf generate), sync goes on to the handlers: this file has no handlers object.
    rmSync(path.join(dir, "src/gen/generated-from.json"));
    await assert.rejects(run([handlers]), /has no object typed as a generated \.\.\.Handlers interface/);
  });
});
