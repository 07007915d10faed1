// `harness-tool diff` guards Render's promise over time: a schema_version a previous release's
// Render decoded and this one does not is breaking (the kernel re-renders persisted events with
// their producer's Render), a new one compatible. The versions are asked of a launched provider by
// Render itself and recorded in the snapshot beside GetSchema's fields.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { renderVersionsKey } from "../../cli/diff/load-surface.js";
import { versionsInRefusal } from "../../cli/diff/render-versions.js";
import { changeClasses, diffRenderVersions } from "../../cli/diff/surface-diff.js";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "./support/run-cli.js";

describe("diff: rendered schema_versions", () => {
  it("a version dropped is breaking, one added compatible; unknown on either side, nothing", () => {
    const changes = diffRenderVersions(["1", "2"], ["2", "3"]);
    assert.deepEqual(
      changes.map((c) => [c.id, c.severity]),
      [
        ["renderer-removed:render.1", "breaking"],
        ["renderer-added:render.3", "compatible"],
      ],
    );
    assert.equal(changeClasses["renderer-removed"], "breaking");
    assert.deepEqual(diffRenderVersions(["1"], undefined), []);
    assert.deepEqual(diffRenderVersions(undefined, []), []);
  });

  it("reads the versions a refusal names, none for a provider without Render", () => {
    assert.deepEqual(
      versionsInRefusal('provider p has no renderer for schema_version "x" (it renders "2", "1", "a\\"b")'),
      ["1", "2", 'a"b'],
    );
    assert.deepEqual(versionsInRefusal("provider p does not implement Render"), []);
    assert.equal(versionsInRefusal("no such method"), undefined);
  });

  describe("against a provider", () => {
    let dir = "";
    let provider = "";
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), "harness-tool-render-diff-"));
      provider = writeProviderScript(dir, "render", "test/cli/fixtures/render-provider.ts");
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("--update records the versions Render decodes in the snapshot", async () => {
      const snapshot = path.join(dir, "tools.json");
      const first = await cli(["diff", snapshot, provider, "--update", snapshot]);
      assert.equal(first.code, 0, first.err);
      const written = JSON.parse(readFileSync(snapshot, "utf8")) as Record<string, unknown>;
      assert.deepEqual(written[renderVersionsKey], ["report/v1"]);
      const again = await cli(["diff", snapshot, provider]);
      assert.equal(again.code, 0, again.err);
      assert.equal(again.out, "no changes\n");
    });

    it("a version the baseline rendered and the provider no longer does fails the diff until allowed", async () => {
      const snapshot = path.join(dir, "tools.json");
      const baseline = JSON.parse(readFileSync(snapshot, "utf8")) as Record<string, unknown>;
      const older = path.join(dir, "older.json");
      writeFileSync(older, JSON.stringify({ ...baseline, [renderVersionsKey]: ["report/v0", "report/v1"] }));
      const run = await cli(["diff", older, provider, "--json"]);
      assert.equal(run.code, 1, run.err);
      const report = JSON.parse(run.out) as { blocking: string[] };
      assert.deepEqual(report.blocking, ["renderer-removed:render.report/v0"]);
      assert.match(run.err, /accept with --allow renderer-removed:render\.report\/v0/);
      const allowed = await cli(["diff", older, provider, "--allow", "renderer-removed:render.report/v0"]);
      assert.equal(allowed.code, 0, allowed.err);
    });
  });
});
