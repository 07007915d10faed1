// proto/ must stay clean under buf lint (STANDARD) and build without warnings.
import assert from "node:assert/strict";
import { it } from "node:test";
import { runBuf } from "./support/buf.js";

it("buf lint (STANDARD) reports nothing", () => {
  const run = runBuf(["lint"]);
  assert.equal(run.status, 0, `buf lint found problems:\n${run.stdout.toString("utf8")}${run.stderr}`);
});

it("buf build succeeds", () => {
  const run = runBuf(["build"]);
  assert.equal(run.status, 0, `buf build failed:\n${run.stderr}`);
});
