// The `@example` blocks of the public entry points (defineTool, defineProvider, serve, launch) are
// code a user copies: each is extracted, written out as a module importing the package by its name
// (`harness-tool`, `harness-tool/testing`), and type-checked under TS 5.9 and TS 7 with the
// project's strict flags, so an example that stops compiling fails here. The TypeScript blocks
// docs/guide.md marks with `<!-- example: NAME -->` are checked the same way.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import ts from "typescript";
import { repoRoot } from "../../support/buf.js";
import { markedTypeScriptExamples } from "../../support/readme-examples.js";

/** The documented functions, by the file that declares them. */
const documented = [
  { file: "runtime/provider/define-tool.ts", name: "defineTool" },
  { file: "runtime/provider/define-provider.ts", name: "defineProvider" },
  { file: "runtime/serve.ts", name: "serve" },
  { file: "runtime/host/launch.ts", name: "launch" },
] as const;

interface Example {
  /** e.g. "defineTool-2". */
  readonly id: string;
  readonly code: string;
}

/** The fenced code of every `@example` tag on the declarations (overloads included) of `name` in `file`. */
function examplesOf(file: string, name: string): Example[] {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const blocks: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isFunctionDeclaration(statement) || statement.name?.text !== name) continue;
    for (const doc of ts.getJSDocCommentsAndTags(statement)) {
      // The comment's lines without their leading " * ", then each `@example` tag's fenced block.
      const lines = doc
        .getText()
        .split("\n")
        .map((line) => line.replace(/^\s*\/?\*+\/?\s?/, ""));
      const body = lines.join("\n");
      for (const match of body.matchAll(/@example\s*\n```ts\n([\s\S]*?)\n```/g)) blocks.push(match[1] as string);
    }
  }
  return blocks.map((code, index) => ({ id: `${name}-${index + 1}`, code }));
}

const examples = documented.map(({ file, name }) => ({ file, name, examples: examplesOf(file, name) }));

// Under node_modules, so `harness-tool` resolves as from the repository (the workspace link and the
// source condition of tsconfig.json) while the repository's own type-check and Biome never see it.
const cacheDir = path.join(repoRoot, "node_modules/.cache");
mkdirSync(cacheDir, { recursive: true });
const workDir = mkdtempSync(path.join(cacheDir, "harness-tool-jsdoc-examples-"));
after(() => rmSync(workDir, { recursive: true, force: true }));

/** The guide's marked TypeScript blocks (docs/guide.md, `<!-- example: NAME -->`): code a user copies too. */
const guideExamples: Example[] = markedTypeScriptExamples("docs/guide.md").map(({ name, code }) => ({
  id: `guide-${name}`,
  code,
}));

const all = [...examples.flatMap((e) => e.examples), ...guideExamples];
for (const { id, code } of all) writeFileSync(path.join(workDir, `${id}.mts`), `${code}\n`);
writeFileSync(
  path.join(workDir, "tsconfig.json"),
  JSON.stringify({
    extends: path.join(repoRoot, "tsconfig.json"),
    include: all.map((e) => `${e.id}.mts`),
    exclude: [],
  }),
);

const compilers = {
  "TypeScript 5.9": ["node", path.join(repoRoot, "node_modules/typescript/bin/tsc")],
  "TypeScript 7": [path.join(repoRoot, "node_modules/typescript7/bin/tsc")],
} as const;

describe("the JSDoc examples", () => {
  for (const { file, name, examples: found } of examples) {
    it(`${name} (${file}) has an @example with a fenced ts block`, () => {
      assert.ok(found.length > 0, `no @example on ${name}`);
    });
  }

  it("docs/guide.md shows how to write a Preview, as a RenderTree", () => {
    const preview = guideExamples.find((e) => e.id === "guide-preview");
    assert.match(preview?.code ?? "", /RenderTreeInit/);
  });

  it("defineTool shows both forms: schema-first and explicit", () => {
    const [schemaFirst, explicit] = examples.find((e) => e.name === "defineTool")?.examples ?? [];
    assert.match(schemaFirst?.code ?? "", /defineTool\(\{/);
    assert.match(explicit?.code ?? "", /defineTool<ReadFileInput, ReadFileOutput>\(\)\(\{/);
  });

  for (const [compiler, [command, ...args]] of Object.entries(compilers)) {
    it(`type-check under ${compiler}`, () => {
      const run = spawnSync(command, [...args, "-p", path.join(workDir, "tsconfig.json"), "--pretty", "false"], {
        cwd: workDir,
        encoding: "utf8",
      });
      assert.equal(
        run.status,
        0,
        `an example does not compile (${workDir}/<function>-<n>.mts):\n${run.stdout}${run.stderr}`,
      );
    });
  }
});
