// The whole project (runtime, plugin, generated code, tests) type-checks with the project's strict
// flags under TypeScript 5.9 (the pinned compiler) and TypeScript 7 (the native port, installed
// under the alias `typescript7`).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

const compilers = {
  "TypeScript 5.9": ["node", path.join(repoRoot, "node_modules/typescript/bin/tsc")],
  "TypeScript 7": [path.join(repoRoot, "node_modules/typescript7/bin/tsc")],
} as const;

for (const [name, [command, ...args]] of Object.entries(compilers)) {
  it(`type-checks under ${name}`, () => {
    const run = spawnSync(command, [...args, "-p", "tsconfig.json", "--pretty", "false"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, `${name} reported errors:\n${run.stdout}${run.stderr}`);
  });
}
