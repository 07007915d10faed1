// generated/ is committed; regenerating it from proto/ and vendor-proto/ must give exactly the committed files.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { it } from "node:test";
import { repoRoot, runBuf } from "./support/buf.js";
import { diffTrees } from "./support/tree-diff.js";

it("generated/ matches a fresh `buf generate` of proto/ and vendor-proto/", () => {
  const out = mkdtempSync(path.join(tmpdir(), "harness-tool-gen-"));
  try {
    const run = runBuf(["generate", "--template", "buf.gen.yaml", "-o", out]);
    assert.equal(run.status, 0, `buf generate failed:\n${run.stderr}`);
    const problems = diffTrees(path.join(repoRoot, "generated"), path.join(out, "generated"), "generated");
    assert.deepEqual(
      problems,
      [],
      `generated/ is stale; run \`npm run generate\` and commit:\n- ${problems.join("\n- ")}`,
    );
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
