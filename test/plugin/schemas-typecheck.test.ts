// Every `<file>_tool_schemas.ts` is generated with `// @ts-nocheck` so that providers do not
// type-check its straight-line data and checks on every build (bench/RESULTS.md). They are
// type-checked here instead, once: the committed goldens and examples, with the directive taken
// out in memory, under the pinned TypeScript with the project's strict flags.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import ts from "typescript";
import { repoRoot } from "../support/buf.js";

/** The line protoplugin's preamble carries with its option ts_nocheck. */
const schemasFileDirective = "// @ts-nocheck";

function schemasFiles(): string[] {
  const found: string[] = [];
  for (const dir of ["examples", "test/plugin/golden"]) {
    for (const entry of readdirSync(path.join(repoRoot, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith("_tool_schemas.ts"))
        found.push(path.join(entry.parentPath, entry.name));
    }
  }
  return found.sort();
}

it("generated schemas files type-check once their @ts-nocheck is removed", () => {
  const files = schemasFiles();
  assert.ok(files.length >= 8, `expected the examples' and goldens' schemas files, found ${files.length}`);
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(repoRoot, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  assert.ok(config);
  const host = ts.createCompilerHost(config.options);
  const original = host.getSourceFile.bind(host);
  const stripped = new Set(files);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (stripped.has(path.resolve(fileName))) {
      const text = readFileSync(fileName, "utf8");
      assert.ok(text.includes(`${schemasFileDirective}\n`), `${fileName} lacks its directive`);
      return ts.createSourceFile(fileName, text.replace(`${schemasFileDirective}\n`, ""), languageVersion);
    }
    return original(fileName, languageVersion, onError, shouldCreate);
  };
  const program = ts.createProgram({ rootNames: files, options: { ...config.options, noEmit: true }, host });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && stripped.has(path.resolve(d.file.fileName)));
  const text = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => repoRoot,
    getNewLine: () => "\n",
  });
  assert.equal(diagnostics.length, 0, text);
});
