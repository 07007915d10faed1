// `harness-tool check` passes a correct provider and, against deliberately broken providers,
// reports exactly the rules each one breaks.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runConformance } from "../../cli/check/run-conformance.js";
import { renderReport } from "../../cli/check/conformance-report.js";
import { kernelHandshake } from "../../runtime/testing/index.js";
import { repoRoot } from "../support/buf.js";

const tsxLoader = path.join(repoRoot, "node_modules/tsx/dist/esm/index.mjs");
const fixture = path.join(repoRoot, "test/cli/fixtures/misbehaving-provider.ts");

describe("harness-tool check", () => {
  let dir = "";
  /** An executable that starts the fixture with one misbehaviour, as the kernel would start a binary. */
  const provider = (misbehaviour: string, extraEnv = ""): { command: string; args: string[] } => {
    const file = path.join(dir, `${misbehaviour}.sh`);
    writeFileSync(
      file,
      `#!/bin/sh\n${extraEnv}MISBEHAVIOUR=${misbehaviour} exec "${process.execPath}" --conditions=harness-tool-source --import "${tsxLoader}" "${fixture}" "$@"\n`,
    );
    chmodSync(file, 0o755);
    return { command: file, args: [] };
  };
  const failedRules = async (misbehaviour: string, extraEnv = "") => {
    const results = await runConformance(provider(misbehaviour, extraEnv), { config: { region: "eu" } });
    return { failed: results.filter((r) => r.status === "fail").map((r) => r.rule), report: renderReport(results) };
  };

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-check-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("passes a correct provider", async () => {
    const { failed, report } = await failedRules("none");
    assert.deepEqual(failed, [], report);
    assert.match(report, /configure\.rejects-missing-required\s+Configure\s+pass/);
    assert.match(report, /invoke\.invalid-arguments:lookup\s+\S.*pass/);
  });

  const broken: [string, string[], string?][] = [
    ["risky-data-source", ["schema.risk-matches-kind"]],
    ["accepts-missing-config", ["configure.rejects-missing-required"]],
    ["skips-argument-validation", ["invoke.invalid-arguments:lookup"]],
    ["stdout-noise", ["handshake.stdout-clean"]],
    ["ignores-shutdown", ["shutdown.graceful"]],
    // A launcher that always sets the right cookie stands for a provider that never checks it.
    ["none", ["handshake.cookie-refused"], `${kernelHandshake.cookieKey}=${kernelHandshake.cookieValue} `],
  ];
  for (const [misbehaviour, expected, env] of broken) {
    it(`reports exactly ${expected.join(", ")} for a provider that ${env ? "ignores the cookie" : misbehaviour.replace(/-/g, " ")}`, async () => {
      const { failed, report } = await failedRules(misbehaviour, env);
      assert.deepEqual(failed, expected, report);
    });
  }
});
