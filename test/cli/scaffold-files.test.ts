// What init's template files (cli/templates/provider, cli/templates/example-tools) become: every
// placeholder filled, JSON that parses, and for each subset of the example tools exactly their
// pieces. init-e2e builds and tests a scaffold; these check every subset without installing one.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fillTemplate, templateFiles } from "../../cli/templates/fill-template.js";
import { harnessToolPackages, protobufVersion } from "../../cli/templates/package-sources.js";
import {
  exampleNames,
  scaffoldFiles,
  scaffoldPluginOptions,
  toolExampleNames,
  type ExampleName,
} from "../../cli/templates/scaffold-files.js";
import { exampleTools } from "./support/scaffold-docs.js";

const packages = { runtime: "^0.1.0", plugin: "file:../tarballs/plugin.tgz", cli: "~0.1" };
/** Each example tool's rpc, and its handler as handlers.ts writes it. */
const rpcOf: Record<Exclude<ExampleName, "hook">, [rpc: string, handler: string]> = {
  data_source: ["ReadNote", "async readNote("],
  resource: ["SaveNote", "async saveNote("],
  process: ["RunCommand", "async runCommand("],
  interactive: ["AskUser", "askUser: askUser.invoke,"],
};

describe("fillTemplate", () => {
  it("fills placeholders, escaping values as JSON string contents in a .json file", () => {
    assert.equal(fillTemplate("a {{x}} b {{x}}", { x: 'say "hi"' }, "README.md"), 'a say "hi" b say "hi"');
    assert.equal(JSON.parse(fillTemplate('{"d": "{{x}}"}', { x: 'C:\\a "b"' }, "dev-config.json")).d, 'C:\\a "b"');
  });

  it("throws on a placeholder without a value, naming the file", () => {
    assert.throws(
      () => fillTemplate("{{nope}}", {}, "src/main.ts"),
      /src\/main\.ts: the template names \{\{nope\}\}, which has no value/,
    );
  });

  it("reads a folder's files by relative path, _gitignore as .gitignore", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-template-"));
    try {
      writeFileSync(path.join(dir, "_gitignore"), "dist/\n");
      writeFileSync(path.join(dir, "b.txt"), "b");
      assert.deepEqual(
        [...templateFiles(dir)],
        [
          [".gitignore", "dist/\n"],
          ["b.txt", "b"],
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("scaffoldFiles", () => {
  // Every subset but hook alone (a provider serves tools: init refuses it).
  const subsets = Array.from({ length: 2 ** exampleNames.length - 1 }, (_, i) =>
    exampleNames.filter((_, bit) => (i + 1) & (1 << bit)),
  ).filter((subset) => subset.some((e) => e !== "hook"));
  for (const examples of subsets) {
    it(`--examples ${examples.join(",")}: every placeholder filled, only the chosen tools`, () => {
      const directory = '/tmp/a "quoted" dir';
      const files = scaffoldFiles({
        name: "my_notes",
        source: "github.com/acme/provider-my-notes",
        examples,
        packages,
        directory,
      });
      assert.deepEqual([...files.keys()].sort(), [
        ".gitignore",
        "README.md",
        "buf.gen.yaml",
        "buf.yaml",
        "dev-config.json",
        ["docs", "README.md"].join("/"),
        ...toolExampleNames
          .filter((e) => examples.includes(e))
          .map((e) => `docs/tools/${exampleTools[e]}.md`)
          .sort(),
        "kernel/agent.hcl",
        "package.json",
        "proto/my_notes/v1/my_notes.proto",
        "src/handlers.ts",
        "src/main.ts",
        "test/provider.test.ts",
        "tsconfig.json",
      ]);
      for (const [file, text] of files) assert.doesNotMatch(text, /\{\{\w+\}\}/, `${file} keeps a placeholder`);
      const pkg = JSON.parse(files.get("package.json") ?? "") as {
        name: string;
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      assert.equal(pkg.name, "provider-my-notes");
      assert.deepEqual(pkg.dependencies, {
        "@bufbuild/protobuf": `^${protobufVersion}`,
        [harnessToolPackages.runtime]: packages.runtime,
      });
      assert.equal(pkg.devDependencies[harnessToolPackages.plugin], packages.plugin);
      assert.equal(pkg.devDependencies[harnessToolPackages.cli], packages.cli);
      // Nothing names where the repository was written: it can be committed and moved.
      assert.deepEqual(JSON.parse(files.get("dev-config.json") ?? ""), { roots: ["."] });
      for (const [file, text] of files)
        assert.ok(!text.includes(directory), `${file} names the repository's absolute path`);
      assert.equal(
        files.has("kernel/config.hcl"),
        false,
        "the dev_overrides line names an absolute path: kernel-config prints it, init does not commit it",
      );
      assert.match(files.get("kernel/agent.hcl") ?? "", /^ {2}# api_token = env\("MY_NOTES_API_TOKEN"\)$/m);
      const proto = files.get("proto/my_notes/v1/my_notes.proto") ?? "";
      const handlers = files.get("src/handlers.ts") ?? "";
      const test = files.get("test/provider.test.ts") ?? "";
      assert.match(proto, /service MyNotesService \{/);
      assert.match(handlers, /export const handlers: MyNotesHandlers = \{/);
      for (const example of toolExampleNames) {
        const [rpc, handler] = rpcOf[example];
        const chosen = examples.includes(example);
        assert.equal(proto.includes(`rpc ${rpc}(`), chosen, `${example}: rpc`);
        assert.equal(proto.includes(`message ${rpc}Request`), chosen, `${example}: messages`);
        assert.equal(handlers.includes(handler), chosen, `${example}: handler`);
      }
      const notes = examples.includes("data_source") || examples.includes("resource");
      assert.equal(handlers.match(/const notes = /g)?.length ?? 0, notes ? 1 : 0, "the notes map, once");
      const interactive = examples.includes("interactive");
      // ask_user's prompt is its Preview; the terminal is the runtime's development fallback, not the scaffold's own code.
      assert.equal(proto.includes("      preview: true\n"), interactive, "interactive: preview declared");
      assert.equal(
        handlers.includes("previewAskUser: askUser.prompt,"),
        interactive,
        "interactive: the prompt as Preview",
      );
      assert.equal(
        handlers.includes('import { askUserTool } from "./gen/my_notes/v1/my_notes_tool.js";'),
        interactive,
        "interactive: the tool's definition, from the repository's own generated module",
      );
      assert.equal(test.includes("askUser.answer("), interactive, "interactive: the answer's check tested");
      assert.equal(test.includes('import { askUser } from "../src/handlers.js";'), interactive);
      assert.doesNotMatch(handlers, /\/dev\/tty|node:readline|node:tty|openTerminal/);
      const hook = examples.includes("hook");
      assert.equal(
        proto.includes("supported_hook_points: [HOOK_POINT_PLAN_READY, HOOK_POINT_POST_TOOL_CALL]"),
        hook,
        "hook: the advertised points",
      );
      assert.equal(handlers.includes("  hooks: {\n"), hook, "hook: the subscriptions");
      assert.equal(handlers.includes("function isWithin("), hook, "hook: its declaration");
      assert.equal(test.includes('dispatchHook("plan-ready", "veto"'), hook, "hook: its test");
      assert.equal(test.includes("import { HookDecision }"), hook, "hook: its test's import");
      assert.equal(
        (files.get("README.md") ?? "").includes("harness-tool hook dist/provider.mjs plan-ready"),
        hook,
        "hook: the README's call",
      );
    });
  }

  it("package.json: generate records the protos and the build refuses code older than them; schema/tools.json waits for the first release", () => {
    const files = scaffoldFiles({
      name: "notes",
      source: "github.com/acme/provider-notes",
      examples: ["data_source"],
      packages,
      directory: "/tmp/notes",
    });
    const { scripts } = JSON.parse(files.get("package.json") ?? "") as { scripts: Record<string, string> };
    assert.equal(files.has("schema/tools.json"), false, "no baseline before anything shipped");
    assert.match(scripts["generate"] ?? "", /^buf generate && harness-tool sync --record-generated$/);
    assert.equal(scripts["prebuild"], "harness-tool sync --check-generated");
    // tsc leaves the generated JavaScript out of dist/: the build copies it for the compiled tests' handlers.
    assert.match(
      scripts["build"] ?? "",
      /^tsc -p tsconfig\.json && node -e "require\('node:fs'\)\.cpSync\('src\/gen', 'dist\/src\/gen', \{ recursive: true \}\)" && /,
    );
    // The build guards a baseline once one exists, and says there is none before.
    assert.match(
      scripts["build"] ?? "",
      / && harness-tool diff schema\/tools\.json dist\/provider\.mjs --update schema\/tools\.json --baseline-optional$/,
    );
    // The baseline is recorded by a release (after it succeeded: postrelease) or by npm run snapshot, each after a build.
    assert.equal(scripts["prerelease"], "npm run build");
    assert.equal(scripts["release"], "harness-tool release");
    assert.equal(
      scripts["postrelease"],
      "harness-tool diff schema/tools.json dist/provider.mjs --update schema/tools.json",
    );
    assert.equal(scripts["presnapshot"], "npm run build");
    assert.equal(scripts["snapshot"], scripts["postrelease"]);
    const test = files.get("test/provider.test.ts") ?? "";
    assert.match(test, /it\("serves the tool surface schema\/tools\.json records", \{ skip: noBaseline \}/);
    // The reference docs init wrote are held to the built provider by npm test; npm run docs rewrites them.
    assert.equal(scripts["docs"], "harness-tool docs dist/provider.mjs --config dev-config.json");
    assert.match(
      scripts["test"] ?? "",
      /^node --test dist\/test\/\*\.test\.js && harness-tool docs dist\/provider\.mjs --config dev-config\.json --check$/,
    );
    assert.ok(files.has(["docs", "README.md"].join("/")), "init writes the first docs");
  });

  it("gives the plugin the options its buf.gen.yaml lists", () => {
    assert.deepEqual(scaffoldPluginOptions(), ["target=js+dts", "import_extension=js"]);
  });
});
