// `harness-tool docs`: every example's committed docs are exactly what the command writes (the
// goldens), the output names no path of this machine and is the same run after run, `--check`
// fails on a proto changed without regenerating the docs (one line per file, and what to run), and
// the author's templates and examples are used or refused with the reason.
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import {
  DiffLineOp,
  RenderTreeSchema,
  TextStyle,
} from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import { AttrType } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import { SchemaType } from "harness-tool/generated/pluggableharness/schema/v1/schema_pb.js";
import {
  GetSchemaResponseSchema,
  RiskClass,
  ToolKind,
  ToolSchemaSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { docsDifferences, renderDocs, writeDocs } from "../../cli/docs/docs-files.js";
import { indexPlaceholders, loadTemplates, toolPlaceholders } from "../../cli/docs/docs-templates.js";
import { previewSection } from "../../cli/docs/docs-sections.js";
import { renderTreeMarkdown } from "../../cli/docs/render-tree-markdown.js";
import { repoRoot, runBuf } from "../support/buf.js";
import { listFiles } from "../support/tree-diff.js";
import { cli } from "./support/run-cli.js";

const examplesRoot = path.join(repoRoot, "examples");
const examples = ["agent", "exec", "filesystem", "guard", "search", "task", "user", "web"];

/** The arguments an example's docs are written with: its docs-config.json and docs-examples.json when it has them. */
function exampleDocsArgs(folder: string): string[] {
  const args = [folder, "--out-dir", path.join(folder, "docs")];
  if (existsSync(path.join(folder, "docs-config.json"))) args.push("--config", path.join(folder, "docs-config.json"));
  if (existsSync(path.join(folder, "docs-examples.json")))
    args.push("--examples", path.join(folder, "docs-examples.json"));
  return args;
}

describe("harness-tool docs: the examples' committed docs", () => {
  for (const name of examples) {
    it(`examples/${name}/docs is what harness-tool docs writes`, async () => {
      const run = await cli(["docs", ...exampleDocsArgs(path.join(examplesRoot, name)), "--check"]);
      assert.equal(
        run.code,
        0,
        `regenerate in examples/${name}: npx harness-tool docs . --config docs-config.json [--examples docs-examples.json]\n${run.err}`,
      );
    });
  }

  it("names no path of this machine, and writes the same files twice", async () => {
    const folder = path.join(examplesRoot, "filesystem");
    const outs = [0, 1].map(() => mkdtempSync(path.join(tmpdir(), "harness-tool-docs-twice-")));
    try {
      for (const out of outs) {
        const run = await cli(["docs", folder, "--config", path.join(folder, "docs-config.json"), "--out-dir", out]);
        assert.equal(run.code, 0, run.err);
      }
      const [first = "", second = ""] = outs;
      assert.deepEqual(listFiles(first), listFiles(second));
      for (const file of listFiles(first)) {
        const text = readFileSync(path.join(first, file), "utf8");
        assert.equal(text, readFileSync(path.join(second, file), "utf8"), file);
        assert.doesNotMatch(text, new RegExp(`${tmpdir()}|${repoRoot}`), `${file} names a path of this machine`);
      }
      // The Preview ran in a folder of its own, written as a placeholder.
      assert.match(
        readFileSync(path.join(first, "tools/write_file.md"), "utf8"),
        /Create \[working directory\]\/example/,
      );
    } finally {
      for (const out of outs) rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("harness-tool docs --check on a changed proto", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-docs-drift-"));
    for (const part of ["proto", "src", "docs"])
      cpSync(path.join(examplesRoot, "task", part), path.join(dir, part), { recursive: true });
    // The example's buf.gen.yaml names the plugin relative to examples/; here it is named absolutely.
    const plugin = path.join(repoRoot, "plugin/protoc-gen-harness-tool.mjs");
    writeFileSync(
      path.join(dir, "buf.gen.yaml"),
      readFileSync(path.join(examplesRoot, "task/buf.gen.yaml"), "utf8").replace(
        "../../plugin/protoc-gen-harness-tool.mjs",
        plugin,
      ),
    );
    writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }\n');
    writeFileSync(path.join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n  - path: harness-proto\n");
    symlinkSync(path.join(repoRoot, "proto"), path.join(dir, "harness-proto"));
    symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("passes on the copy as committed, then fails naming the pages and the command once the proto changed", async () => {
    assert.equal((await cli(["docs", dir, "--out-dir", path.join(dir, "docs"), "--check"])).code, 0);
    const proto = path.join(dir, "proto/examples/task/v1/task.proto");
    const text = readFileSync(proto, "utf8");
    const changed = text.replace(/(\n\s*\/\/ )([^\n]*\n\s*string title = )/, "$1The task's new title. $2");
    assert.notEqual(changed, text, "the proto has a title field to change");
    writeFileSync(proto, changed);
    const generated = runBuf(["generate"], dir);
    assert.equal(generated.status, 0, generated.stderr);
    const run = await cli(["docs", dir, "--out-dir", path.join(dir, "docs"), "--check"]);
    assert.equal(run.code, 1, run.err);
    const lines = run.err.trimEnd().split("\n");
    // Task (whose title changed) is every tool's output: each page shows it, and only the pages differ.
    assert.deepEqual(
      lines.slice(0, -1),
      ["task_create", "task_list", "task_update"].map(
        (tool) => `harness-tool docs: ${path.join(dir, `docs/tools/${tool}.md`)}: differs`,
      ),
    );
    assert.equal(
      lines.at(-1),
      `harness-tool docs: the docs are out of date: run harness-tool docs ${dir} --out-dir ${path.join(dir, "docs")} and commit them`,
    );
    // Writing them brings the check back to passing.
    assert.equal((await cli(["docs", dir, "--out-dir", path.join(dir, "docs")])).code, 0);
    assert.match(readFileSync(path.join(dir, "docs/tools/task_create.md"), "utf8"), /The task's new title\./);
    assert.equal((await cli(["docs", dir, "--out-dir", path.join(dir, "docs"), "--check"])).code, 0);
  });
});

describe("harness-tool docs: the author's templates and examples", () => {
  const folder = path.join(examplesRoot, "task");
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-docs-templates-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("uses index.md, tool.md and tools/<tool>.md from --templates, and the examples file's arguments", async () => {
    const templates = path.join(dir, "templates");
    mkdirSync(path.join(templates, "tools"), { recursive: true });
    writeFileSync(path.join(templates, "index.md"), "# The {{provider_name}} tools\n\n{{tools_table}}\n");
    writeFileSync(path.join(templates, "tool.md"), "# {{tool_name}} of {{provider_name}}\n\n{{example_call}}\n");
    writeFileSync(path.join(templates, "tools/task_list.md"), "# Listing\n\n{{tool_facts}}\n");
    const examplesFile = path.join(dir, "examples.json");
    writeFileSync(examplesFile, JSON.stringify({ task_create: { title: "Write the docs" } }));
    const out = path.join(dir, "out");
    const run = await cli(["docs", folder, "--out-dir", out, "--templates", templates, "--examples", examplesFile]);
    assert.equal(run.code, 0, run.err);
    const index = readFileSync(path.join(out, "README.md"), "utf8");
    assert.match(index, /^# The task tools\n\n\| tool \| kind \|/);
    const create = readFileSync(path.join(out, "tools/task_create.md"), "utf8");
    assert.match(create, /^# task_create of task\n\nThe author's example:/);
    assert.match(create, /"title": "Write the docs"/);
    assert.match(readFileSync(path.join(out, "tools/task_list.md"), "utf8"), /^# Listing\n\n\| fact \| value \|/);
  });

  it("refuses a template naming an unknown placeholder, and an examples file naming no tool", async () => {
    const templates = path.join(dir, "bad-templates");
    mkdirSync(templates, { recursive: true });
    writeFileSync(path.join(templates, "index.md"), "# {{provider_title}}\n");
    const bad = await cli(["docs", folder, "--out-dir", path.join(dir, "unused"), "--templates", templates]);
    assert.equal(bad.code, 2);
    assert.match(
      bad.err,
      /index\.md names \{\{provider_title\}\}, which is not a placeholder \(the placeholders: provider_name,/,
    );
    const examplesFile = path.join(dir, "misspelt.json");
    writeFileSync(examplesFile, JSON.stringify({ task_creat: { title: "x" } }));
    const misspelt = await cli(["docs", folder, "--out-dir", path.join(dir, "unused"), "--examples", examplesFile]);
    assert.equal(misspelt.code, 2);
    assert.match(misspelt.err, /"task_creat" names no tool; did you mean task_create\?/);
    assert.equal(existsSync(path.join(dir, "unused")), false, "nothing is written when the run is refused");
  });
});

describe("the docs' parts", () => {
  it("docs/guide.md's placeholder table lists exactly the placeholders the templates take", () => {
    const guide = readFileSync(path.join(repoRoot, "docs/guide.md"), "utf8");
    const table = guide.slice(guide.indexOf("| placeholder | on | becomes |"));
    const rows = table.slice(0, table.indexOf("\n\n")).split("\n").slice(2);
    const listed = rows.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1]));
    assert.deepEqual(listed.sort(), Object.keys(toolPlaceholders).sort());
    const onIndex = rows.filter((row) => row.includes("| every page |"));
    const indexListed = onIndex.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1]));
    assert.deepEqual(indexListed.sort(), Object.keys(indexPlaceholders).sort());
  });

  it("--check's lines: a page missing, a page that differs, a page of a tool that is gone", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-docs-differences-"));
    try {
      mkdirSync(path.join(dir, "tools"));
      writeFileSync(path.join(dir, "README.md"), "old\n");
      writeFileSync(path.join(dir, "tools/gone.md"), "# gone\n");
      writeFileSync(path.join(dir, "tools/kept.md"), "# kept\n");
      const files = new Map([
        ["README.md", "new\n"],
        ["tools/kept.md", "# kept\n"],
        ["tools/added.md", "# added\n"],
      ]);
      assert.deepEqual(docsDifferences(dir, files), [
        `${dir}/README.md: differs`,
        `${dir}/tools/added.md: missing`,
        `${dir}/tools/gone.md: no such tool any more`,
      ]);
      writeDocs(dir, files);
      assert.deepEqual(docsDifferences(dir, files), []);
      assert.equal(
        existsSync(path.join(dir, "tools/gone.md")),
        false,
        "writing removes the page of a tool that is gone",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("draws a Preview's RenderTree: styles, code, diff, table (pipes escaped), list, link, action", () => {
    const tree = create(RenderTreeSchema, {
      root: {
        node: {
          case: "group",
          value: {
            children: [
              { node: { case: "text", value: { content: "Replace", style: TextStyle.BOLD } } },
              { node: { case: "codeBlock", value: { language: "ts", content: "a ```b``` c" } } },
              {
                node: {
                  case: "diff",
                  value: {
                    hunks: [
                      {
                        oldStart: 1,
                        oldLines: 1,
                        newStart: 1,
                        newLines: 1,
                        lines: [
                          { op: DiffLineOp.REMOVE, text: "old" },
                          { op: DiffLineOp.ADD, text: "new" },
                        ],
                      },
                    ],
                  },
                },
              },
              { node: { case: "table", value: { headers: ["a|b"], rows: [{ cells: ["1"] }] } } },
              {
                node: {
                  case: "list",
                  value: { ordered: true, items: [{ node: { case: "text", value: { content: "x" } } }] },
                },
              },
              { node: { case: "link", value: { text: "site", url: "https://example.com/a" } } },
              { node: { case: "action", value: { label: "Undo", toolName: "undo" } } },
            ],
          },
        },
      },
    });
    assert.equal(
      renderTreeMarkdown(tree),
      [
        "**Replace**",
        "```ts\na ```b``` c\n```",
        "```diff\n@@ -1,1 +1,1 @@\n-old\n+new\n```",
        "| a\\|b |\n| --- |\n| 1 |",
        "1. x",
        "[site](<https://example.com/a>)",
        "Action: Undo (calls `undo`)",
      ].join("\n\n"),
    );
  });
  it("calls an interactive tool's Preview the prompt the frontend shows, another's what the approval shows", () => {
    const preview = create(RenderTreeSchema, { root: { node: { case: "text", value: { content: "Pick one" } } } });
    const input = {
      producer: { name: "p", version: "1", source: "github.com/acme/p" },
      schema: create(GetSchemaResponseSchema),
      examples: new Map(),
      previews: new Map([["t", preview]]),
    };
    const section = (kind: ToolKind) =>
      previewSection(create(ToolSchemaSchema, { name: "t", kind, risk: RiskClass.LOW }), input);
    assert.match(section(ToolKind.INTERACTIVE), /^The prompt the frontend shows the person for the example call/);
    assert.match(section(ToolKind.RESOURCE), /^What the approval step shows for the example call:/);
    assert.match(section(ToolKind.RESOURCE), /Pick one/);
  });
  it("renders what no example declares: slash commands, nested fields and enums, nested config, secrets", () => {
    const input = create(GetSchemaResponseSchema, {
      tools: [
        {
          name: "tag",
          kind: ToolKind.RESOURCE,
          risk: RiskClass.LOW,
          description: "Tags | things.",
          inputSchema: {
            type: SchemaType.OBJECT,
            required: ["filter"],
            properties: {
              filter: {
                type: SchemaType.OBJECT,
                required: ["mode"],
                properties: { mode: { type: SchemaType.STRING, enumValues: ["all", "any"], description: "How." } },
              },
              labels: {
                type: SchemaType.ARRAY,
                items: { type: SchemaType.OBJECT, properties: { name: { type: SchemaType.STRING } } },
              },
            },
          },
          outputSchema: { type: SchemaType.OBJECT },
          concurrency: { safe: true, keyFields: ["filter"] },
        },
      ],
      slashCommands: [{ name: "summarize", description: "Summarizes.", template: "Summarize {{args}}" }],
      configSchema: {
        attributes: [
          {
            name: "service",
            type: AttrType.OBJECT,
            objectAttributes: [{ name: "token", type: AttrType.STRING, sensitive: true, required: true }],
          },
          { name: "limit", type: AttrType.NUMBER, defaultJson: "10" },
        ],
      },
    });
    const files = renderDocs(
      {
        producer: { name: "tagger", version: "1.2.3", source: "example.com/tagger" },
        schema: input,
        examples: new Map([["tag", { args: { filter: { mode: "all" } }, from: "sample" as const }]]),
        previews: new Map(),
      },
      loadTemplates(undefined, ["tag"]),
    );
    const index = files.get("README.md") ?? "";
    assert.match(index, /^\| `service\.token` \| string \| yes \| yes: `env\("TAGGER_SERVICE_TOKEN"\)` \| - \| - \|$/m);
    assert.match(index, /^\| `limit` \| number \| no \| no \| `10` \| - \|$/m);
    // The optional object is written commented out, its secret inside it as env("…"), as kernel-config writes it.
    assert.match(index, /^ {2}# {3}token = env\("TAGGER_SERVICE_TOKEN"\)$/m);
    assert.match(index, /^### \/summarize\n\nSummarizes\.\n\n```text\nSummarize \{\{args\}\}\n```$/m);
    assert.match(
      index,
      /^\| \[`tag`\]\(tools\/tag\.md\) \| resource \| low \| no \| no \| by filter \| kernel default \| no \|$/m,
    );
    const page = files.get("tools/tag.md") ?? "";
    assert.match(page, /^Tags \| things\.$/m);
    assert.match(page, /^\| `filter\.mode` \| string \| yes \| How\. One of: `all`, `any`\. \|$/m);
    assert.match(page, /^\| `labels` \| array of object \| no \| - \|$/m);
    assert.match(page, /^\| `labels\[\]\.name` \| string \| no \| - \|$/m);
    assert.match(page, /The tool has no Preview: the approval step shows the call's arguments\./);
  });
});
