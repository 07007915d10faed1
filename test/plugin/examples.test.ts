// The examples' generated code is committed: a fresh `buf generate` (protoc-gen-harness-tool
// through its bin) must give exactly the committed files, and the examples type-check under
// TypeScript 5.9 and TypeScript 7 with the project's flags.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { repoRoot, runBuf } from "../support/buf.js";
import { diffTrees } from "../support/tree-diff.js";

const examplesRoot = path.join(repoRoot, "examples");
const examples = readdirSync(examplesRoot)
  .filter((name) => statSync(path.join(examplesRoot, name)).isDirectory())
  .sort();

describe("examples", () => {
  it("cover the reference catalog", () => {
    for (const name of ["filesystem", "search", "exec", "web", "task", "agent", "user"])
      assert.ok(examples.includes(name), `examples/${name} is missing`);
  });

  for (const name of examples) {
    it(`${name}: src/gen matches a fresh buf generate`, () => {
      const out = mkdtempSync(path.join(tmpdir(), `harness-tool-example-${name}-`));
      try {
        const run = runBuf(["generate", "-o", out], path.join(examplesRoot, name));
        assert.equal(run.status, 0, `buf generate failed:\n${run.stderr}`);
        const problems = diffTrees(
          path.join(examplesRoot, name, "src/gen"),
          path.join(out, "src/gen"),
          `examples/${name}/src/gen`,
        );
        assert.deepEqual(
          problems,
          [],
          `regenerate with \`buf generate\` in examples/${name} and commit:\n- ${problems.join("\n- ")}`,
        );
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  }

  const compilers = {
    "TypeScript 5.9": [process.execPath, path.join(repoRoot, "node_modules/typescript/bin/tsc")],
    "TypeScript 7": [path.join(repoRoot, "node_modules/typescript7/bin/tsc")],
  } as const;
  for (const [compiler, [command, ...args]] of Object.entries(compilers)) {
    it(`type-check under ${compiler}`, () => {
      const run = spawnSync(command, [...args, "-p", "examples/tsconfig.json", "--pretty", "false"], {
        cwd: repoRoot,
        encoding: "utf8",
      });
      assert.equal(run.status, 0, `${compiler} reported errors:\n${run.stdout}${run.stderr}`);
    });
  }
});
