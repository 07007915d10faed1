// The reference docs `harness-tool init` writes are what `harness-tool docs` writes for the new
// repository once it is generated: `docs --check` passes on a fresh scaffold of several choices of
// examples (so the scaffold's `npm test`, which runs it, passes from the start). When it fails, a
// change to the docs' format or to the example tools left the pieces in cli/templates behind:
// rewrite them with test/cli/support/scaffold-docs.ts (its header says how).
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type { ExampleName } from "../../cli/templates/scaffold-files.js";
import { scaffoldDocsArgs } from "./support/scaffold-docs.js";
import { scaffoldRepository } from "./support/scaffold-repository.js";
import { cli } from "./support/run-cli.js";

const choices: ExampleName[][] = [
  ["data_source", "resource", "process", "interactive", "hook"],
  ["interactive", "resource"],
];

describe("the docs init writes", () => {
  for (const examples of choices) {
    it(`--examples ${examples.join(",")}: harness-tool docs --check passes on the generated scaffold`, async () => {
      const dir = scaffoldRepository("my_notes", "github.com/acme/provider-my-notes", examples);
      try {
        const run = await cli([...scaffoldDocsArgs(dir), "--check"]);
        assert.equal(run.code, 0, `rewrite the pieces: test/cli/support/scaffold-docs.ts\n${run.err}`);
        const index = readFileSync(path.join(dir, "docs", "README.md"), "utf8");
        assert.match(index, /`env\("MY_NOTES_API_TOKEN"\)`/, 'the secret as env("…"), named as kernel-config names it');
        assert.equal(
          index.includes("`plan-ready`"),
          examples.includes("hook"),
          "the hook points of the hook example only",
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
