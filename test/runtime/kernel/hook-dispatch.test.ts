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
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { providerArgv, writeProviderScript } from "../../support/provider-script.js";
import { countOutcomes, outcomeLines, parseGoTestJson } from "./go-test-events.js";
import { kernelFixture } from "./kernel-launch-manifest.js";
import {
  goTestEnvironment,
  goVersion,
  installHarnessGoFiles,
  KernelUnavailable,
  locateSnapshot,
  unpackKernel,
  type KernelSnapshot,
} from "./kernel-snapshot.js";

const requireKernel = process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1";
const paths = [
  ["TestHarnessToolHooks_goPlugin", "through go-plugin v1.8.0"],
  ["TestHarnessToolHooks_launch", "through pluginruntime.Launch"],
] as const;

function kernelOrSkip(): { snapshot: KernelSnapshot; goVersion: string } | { skip: string } {
  try {
    return { snapshot: locateSnapshot(), goVersion: goVersion() };
  } catch (error) {
    if (!(error instanceof KernelUnavailable)) throw error;
    if (requireKernel) throw new Error(`the hook-dispatch test must run here (HARNESS_TOOL_REQUIRE_INTEROP=1), but ${error.message}`);
    return { skip: error.message };
  }
}

function runGoTest(cwd: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const args = ["test", "-tags", "integration", "-count=1", "-json", "-timeout", "5m", "-run", "^TestHarnessToolHooks_", "./internal/pluginruntime/"];
    const child = spawn("go", args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8"), code }));
  });
}

const kernel = kernelOrSkip();

test("hook dispatch with the kernel's HookSubscriberServiceClient, through go-plugin v1.8.0 and pluginruntime.Launch", {
  skip: "skip" in kernel ? kernel.skip : false,
}, async (t) => {
  if ("skip" in kernel) return;
  const tree = unpackKernel(kernel.snapshot, kernel.goVersion);
  installHarnessGoFiles(tree, providerArgv(kernelFixture));
  const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-hooks-run-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = path.join(dir, "hooks.json");
  const secret = "hook-secret-7f3a9c";
  writeFileSync(manifest, JSON.stringify({ provider: writeProviderScript(dir, "hooks", "test/runtime/kernel/fixtures/hook-provider.ts"), secret }));
  const tmp = path.join(dir, "tmp");
  mkdirSync(tmp);

  const started = performance.now();
  const result = await runGoTest(tree.moduleRoot, goTestEnvironment(tree, { HARNESS_TOOL_HOOK_MANIFEST: manifest, TMPDIR: tmp }));
  const run = parseGoTestJson(result.stdout);
  const seconds = (performance.now() - started) / 1000;
  console.log(`# kernel ${tree.snapshot.commit}, ${tree.goVersion}: hook scenarios in ${seconds.toFixed(1)} s`);
  for (const [name, label] of paths) {
    const scenarios = run.tests.filter((o) => o.name.startsWith(`${name}/`));
    const c = countOutcomes(scenarios);
    console.log(`#   ${label}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (of ${scenarios.length} scenarios)`);
  }
  for (const line of outcomeLines(run.tests)) console.log(line);
  for (const line of run.notes) console.log(`# note: ${line}`);

  const failure = (name: string) => {
    const outcome = run.tests.find((o) => o.name === name);
    return outcome ? `${name}: ${outcome.action}\n${outcome.output}` : `${name} did not run:\n${run.packageOutput}${result.stderr}`;
  };
  for (const [name, label] of paths) {
    await t.test(label, async (t) => {
      const scenarios = run.tests.filter((o) => o.name.startsWith(`${name}/`));
      assert.ok(scenarios.length >= 28, `${name} ran ${scenarios.length} scenarios:\n${failure(name)}`);
      for (const outcome of scenarios) await t.test(outcome.name.slice(name.length + 1), () => assert.equal(outcome.action, "pass", failure(outcome.name)));
      assert.equal(run.tests.find((o) => o.name === name)?.action, "pass", failure(name));
    });
  }
  await t.test("go test exits 0", () => assert.equal(result.code, 0, `${run.packageOutput}${result.stderr}`));
});
