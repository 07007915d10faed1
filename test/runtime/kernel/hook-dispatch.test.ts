/**
 * Hook dispatch through the kernel's own code: the kernel's source snapshot is unpacked (as for
 * kernel-launch.test.ts), harness-tool's Go files join its internal/pluginruntime package, and
 * `go test -run '^TestHarnessToolHooks_'` drives test/runtime/kernel/fixtures/hook-provider.ts with
 * the kernel's generated HookSubscriberServiceClient (pkg/hook/proto/v1), dialled on the provider's
 * go-plugin connection twice: through a bare go-plugin v1.8.0 client (the kernel's go.mod pin) and
 * through pluginruntime.Launch (harness_tool_hooks_test.go.txt says what each scenario checks).
 *
 * Skips only when `go` or the snapshot is missing and HARNESS_TOOL_REQUIRE_INTEROP is not "1".
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { providerArgv, writeProviderScript } from "../../support/provider-script.js";
import { countOutcomes, outcomeLines, parseGoTestJson } from "./go-test-events.js";
import { kernelFixture } from "./kernel-launch-manifest.js";
import { goTestEnvironment, installHarnessGoFiles, kernelOrSkip, runGoTest, unpackKernel } from "./kernel-snapshot.js";

const paths = [
  ["TestHarnessToolHooks_goPlugin", "through go-plugin v1.8.0"],
  ["TestHarnessToolHooks_launch", "through pluginruntime.Launch"],
] as const;

const kernel = kernelOrSkip("hook-dispatch");

test("hook dispatch with the kernel's HookSubscriberServiceClient, through go-plugin v1.8.0 and pluginruntime.Launch", {
  skip: "skip" in kernel ? kernel.skip : false,
}, async (t) => {
  if ("skip" in kernel) return;
  if ("failure" in kernel) throw kernel.failure;
  const tree = unpackKernel(kernel.snapshot, kernel.goVersion);
  installHarnessGoFiles(tree, providerArgv(kernelFixture));
  const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-hooks-run-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = path.join(dir, "hooks.json");
  const secret = "hook-secret-7f3a9c";
  writeFileSync(
    manifest,
    JSON.stringify({
      provider: writeProviderScript(dir, "hooks", "test/runtime/kernel/fixtures/hook-provider.ts"),
      secret,
    }),
  );
  const tmp = path.join(dir, "tmp");
  mkdirSync(tmp);

  const started = performance.now();
  const result = await runGoTest(tree, goTestEnvironment(tree, { HARNESS_TOOL_HOOK_MANIFEST: manifest, TMPDIR: tmp }), [
    "-timeout",
    "5m",
    "-run",
    "^TestHarnessToolHooks_",
    "./internal/pluginruntime/",
  ]);
  const run = parseGoTestJson(result.stdout);
  const seconds = (performance.now() - started) / 1000;
  console.log(`# kernel ${tree.snapshot.commit}, ${tree.goVersion}: hook scenarios in ${seconds.toFixed(1)} s`);
  for (const [name, label] of paths) {
    const scenarios = run.tests.filter((o) => o.name.startsWith(`${name}/`));
    const c = countOutcomes(scenarios);
    console.log(
      `#   ${label}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (of ${scenarios.length} scenarios)`,
    );
  }
  for (const line of outcomeLines(run.tests)) console.log(line);
  for (const line of run.notes) console.log(`# note: ${line}`);

  const failure = (name: string) => {
    const outcome = run.tests.find((o) => o.name === name);
    return outcome
      ? `${name}: ${outcome.action}\n${outcome.output}`
      : `${name} did not run:\n${run.packageOutput}${result.stderr}`;
  };
  for (const [name, label] of paths) {
    await t.test(label, async (t) => {
      const scenarios = run.tests.filter((o) => o.name.startsWith(`${name}/`));
      assert.ok(scenarios.length >= 28, `${name} ran ${scenarios.length} scenarios:\n${failure(name)}`);
      for (const outcome of scenarios)
        await t.test(outcome.name.slice(name.length + 1), () =>
          assert.equal(outcome.action, "pass", failure(outcome.name)),
        );
      assert.equal(run.tests.find((o) => o.name === name)?.action, "pass", failure(name));
    });
  }
  await t.test("go test exits 0", () => assert.equal(result.code, 0, `${run.packageOutput}${result.stderr}`));
});
