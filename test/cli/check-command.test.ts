// `harness-tool check` passes a correct provider and, against deliberately broken providers,
// reports exactly the rules each one breaks.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runConformance } from "../../cli/check/run-conformance.js";
import { renderReport } from "../../cli/check/conformance-report.js";
import { kernelHandshake } from "../../runtime/testing/index.js";
import { writeProviderScript } from "../support/provider-script.js";

describe("harness-tool check", () => {
  let dir = "";
  /** An executable that starts the fixture with one misbehaviour, as the kernel would start a binary. */
  const provider = (
    misbehaviour: string,
    extraEnv: Record<string, string> = {},
  ): { command: string; args: string[] } => ({
    command: writeProviderScript(
      dir,
      `${misbehaviour}-${Object.keys(extraEnv).length}`,
      "test/cli/fixtures/misbehaving-provider.ts",
      {
        ...extraEnv,
        MISBEHAVIOUR: misbehaviour,
      },
    ),
    args: [],
  });
  const failedRules = async (misbehaviour: string, extraEnv: Record<string, string> = {}) => {
    const results = await runConformance(provider(misbehaviour, extraEnv), { config: { region: "eu" } });
    return {
      failed: results.filter((r) => r.status === "fail").map((r) => r.rule),
      report: renderReport(results, 400),
    };
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
    assert.match(report, /preview\.valid:lookup\s+\S.*pass/);
    assert.match(report, /invoke\.cancellation\s+\S.*cancelled ping: .*; watch: cancelled after \d+ event/);
  });

  it("fails only the handshake of a provider that crashes at start, and skips the cookie rule", async () => {
    const results = await runConformance(provider("crashes-at-start"), {});
    assert.deepEqual(
      results.map((r) => [r.rule, r.status]),
      [
        ["handshake.line", "fail"],
        ["handshake.cookie-refused", "skip"],
      ],
    );
    assert.match(results[0]?.why ?? "", /exited with code 1/);
  });

  it("says how to give a resource tool its arguments, with the args-file's shape for that tool", async () => {
    const streaming = {
      command: writeProviderScript(dir, "streaming", "test/cli/fixtures/streaming-provider.ts"),
      args: [],
    };
    const why = async (allowResources: boolean) =>
      (await runConformance(streaming, { allowResources })).find((r) => r.rule === "invoke.valid:run");
    assert.deepEqual(await why(false), {
      rule: "invoke.valid:run",
      section: "Invoke",
      status: "skip",
      why: 'resource tool, not invoked unless allowed: --allow-resources --cwd <scratch dir> --args-file args.json, with args.json holding {"run":{"script":"example"}}',
    });
    assert.equal((await why(true))?.why, 'no arguments for it in the --args-file: add {"run":{"script":"example"}}');
  });

  const broken: [string, string[], Record<string, string>?][] = [
    ["risky-data-source", ["schema.risk-matches-kind"]],
    ["accepts-missing-config", ["configure.rejects-missing-required"]],
    ["skips-argument-validation", ["invoke.invalid-arguments:lookup"]],
    ["stdout-noise", ["handshake.stdout-clean"]],
    ["ignores-shutdown", ["shutdown.graceful"]],
    ["advertises-a-sensitive-default", ["schema.config-sensitive-default"]],
    ["declares-an-empty-object-config", ["schema.config-object-attributes"]],
    ["names-a-slash-command-with-a-slash", ["schema.slash-command-name"]],
    ["gives-a-slash-command-no-template", ["schema.slash-command-template"]],
    ["names-a-tool-with-a-leading-digit", ["schema.name-format"]],
    ["reports-a-source-off-any-forge", ["schema.source-forge-address"]],
    ["previews-without-a-root", ["preview.valid:lookup"]],
    ["wedges-when-its-slow-stream-is-cancelled", ["invoke.cancellation"]],
    // A launcher that always sets the right cookie stands for a provider that never checks it.
    ["none", ["handshake.cookie-refused"], { [kernelHandshake.cookieKey]: kernelHandshake.cookieValue }],
  ];
  for (const [misbehaviour, expected, env] of broken) {
    it(`reports exactly ${expected.join(", ")} for a provider that ${env ? "ignores the cookie" : misbehaviour.replace(/-/g, " ")}`, async () => {
      const { failed, report } = await failedRules(misbehaviour, env);
      assert.deepEqual(failed, expected, report);
    });
  }
});
