// `harness-tool check`'s hook rules: a correct hook subscriber passes every one, and each deliberately
// broken subscriber (test/cli/fixtures/hook-misbehaving-provider.ts, bent at the wire) fails exactly
// the rule it breaks: response shape per mode, identity where nothing may change, the immutable
// model, the veto decision set, refusal of an undeclared point, of a request without a mode, the
// refusal's error, a point advertised with nothing behind it, a handler that hangs.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { renderReport } from "../../cli/check/conformance-report.js";
import { runConformance, type ConformanceOptions } from "../../cli/check/run-conformance.js";
import { writeProviderScript } from "../support/provider-script.js";

describe("harness-tool check: hook subscribers", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-check-hooks-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const check = async (misbehaviour: string, options: ConformanceOptions = {}) => {
    const command = writeProviderScript(dir, misbehaviour, "test/cli/fixtures/hook-misbehaving-provider.ts", {
      MISBEHAVIOUR: misbehaviour,
    });
    const results = await runConformance({ command, args: [] }, { cwd: dir, ...options });
    const hookRows = results.filter((r) => r.rule.startsWith("hooks."));
    return {
      results,
      hookRows,
      failed: results.filter((r) => r.status === "fail").map((r) => r.rule),
      report: renderReport(results, 400),
    };
  };

  it("passes a correct subscriber, and says which modes each advertised point answered", async () => {
    const { failed, hookRows, report } = await check("none");
    assert.deepEqual(failed, [], report);
    assert.deepEqual(
      hookRows.map((r) => [r.rule, r.status, r.why]),
      [
        ["hooks.advertised", "pass", "pre-model-call, plan-ready, post-tool-call"],
        [
          "hooks.point:pre-model-call",
          "pass",
          "observe: refused, not subscribed; transform: conforming payload; veto: refused, not subscribed",
        ],
        [
          "hooks.point:plan-ready",
          "pass",
          "observe: refused, not subscribed; transform: conforming payload; veto: allow",
        ],
        [
          "hooks.point:post-tool-call",
          "pass",
          "observe: acknowledged; transform: refused, not subscribed; veto: refused, not subscribed",
        ],
        ["hooks.unadvertised-refused", "pass", "5 point(s) × 3 modes refused"],
        ["hooks.malformed-refused", "pass", "at pre-model-call: mode unset and no payload refused"],
      ],
    );
  });

  const broken: [misbehaviour: string, expected: string[], why: RegExp][] = [
    [
      "observe-answers-veto",
      ["hooks.point:post-tool-call"],
      /observe: answered a observe request with veto, not observe \(INVALID_RESPONSE\)/,
    ],
    [
      "identity-changes-payload",
      ["hooks.point:plan-ready"],
      /transform: changed plan; nothing at this point may change/,
    ],
    ["transform-changes-model", ["hooks.point:pre-model-call"], /transform: changed model; only messages may change/],
    ["veto-unspecified", ["hooks.point:plan-ready"], /veto: decided UNSPECIFIED, which is neither ALLOW nor DENY/],
    ["answers-unadvertised", ["hooks.unadvertised-refused"], /session-start observe: answered observe/],
    ["answers-mode-unset", ["hooks.malformed-refused"], /mode unset: answered observe/],
    [
      "advertises-without-handler",
      ["hooks.point:session-end"],
      /advertised in supported_hook_points, but every mode was refused/,
    ],
    [
      "refuses-without-hook-error",
      [
        "hooks.point:pre-model-call",
        "hooks.point:plan-ready",
        "hooks.point:post-tool-call",
        "hooks.unadvertised-refused",
        "hooks.malformed-refused",
      ],
      /gRPC status 9: not subscribed, neither an answer nor the INVALID_RESPONSE refusal/,
    ],
  ];
  for (const [misbehaviour, expected, why] of broken) {
    it(`reports exactly ${expected.join(", ")} for a subscriber that ${misbehaviour.replace(/-/g, " ")}`, async () => {
      const { failed, results, report } = await check(misbehaviour);
      assert.deepEqual(failed, expected, report);
      assert.match(results.find((r) => r.rule === expected[0])?.why ?? "", why);
    });
  }

  it("fails a veto that hangs past the deadline", async () => {
    const { failed, results, report } = await check("veto-hangs", { hookTimeoutMs: 500 });
    assert.deepEqual(failed, ["hooks.point:plan-ready"], report);
    assert.match(
      results.find((r) => r.rule === "hooks.point:plan-ready")?.why ?? "",
      /veto: no answer before the deadline \(gRPC status 4/,
    );
  });

  it("warns, without failing, about a veto that throws on the sample plan (the kernel denies)", async () => {
    const { failed, results, report } = await check("veto-throws");
    assert.deepEqual(failed, [], report);
    const row = results.find((r) => r.rule === "hooks.point:plan-ready");
    assert.equal(row?.status, "warn");
    assert.match(
      row?.why ?? "",
      /veto: the handler failed on the sample payload \(gRPC status \d+ \(HookError VETO_FAILED\): .*the policy store is unreachable/,
    );
  });
});
