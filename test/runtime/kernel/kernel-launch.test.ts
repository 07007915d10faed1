/**
 * TypeScript providers launched by the kernel's own code: the kernel's source snapshot
 * (../shared/kernel, or HARNESS_TOOL_KERNEL_SNAPSHOT) is unpacked into the temp dir, harness-tool's
 * Go test files join its internal/pluginruntime package, and
 * `go test -tags integration ./internal/pluginruntime/...` runs there:
 *
 * - the kernel's own integration test (launch_integration_test.go, as the snapshot has it), whose
 *   TestMain builds ./testdata/plugin: there harness-tool puts a shim that execs Node on
 *   test/runtime/kernel/fixtures/kernel-fixture-provider.ts, the TypeScript twin of the Go fixture;
 * - harness-tool's scenarios through pluginruntime.Launch, the dispensed ToolServiceClient and
 *   (*Plugin).Close, against the sample provider, a probe, providers that fail to start, and
 *   every example (test/runtime/kernel/go/*.go.txt), examples/user's prompt and answer carried in
 *   the kernel's own frontend.v1 messages (harness_tool_interactive_test.go.txt), and one trace from
 *   the kernel's spans through the provider's, exported over OTLP to a receiver in the test
 *   (harness_tool_trace_test.go.txt);
 * - the package's unit tests, which come along.
 *
 * Skips only when `go` or the snapshot is missing and HARNESS_TOOL_REQUIRE_INTEROP is not "1"
 * (.ci/run sets it): there, that is a failure.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { providerArgv } from "../../support/provider-script.js";
import { supervisorUnderTest, transportUnderTest } from "../../support/supervisor-under-test.js";
import { countOutcomes, outcomeLines, parseGoTestJson, type GoTestRun } from "./go-test-events.js";
import { kernelFixture, writeKernelLaunchManifest, type ExampleWorld } from "./kernel-launch-manifest.js";
import {
  goTestEnvironment,
  installHarnessGoFiles,
  kernelOrSkip,
  runGoTest,
  unpackKernel,
  type KernelTree,
} from "./kernel-snapshot.js";

/** The kernel's own integration tests, which must pass with the TypeScript fixture. */
const kernelIntegrationTests = ["TestLaunch_realSubprocess", "TestLaunch_cancelContextTearsDownSubprocess"];
/** Set only in `go test`'s environment: whether it reaches a provider shows what go-plugin passes on. */
const hostOnlyVariable = "HARNESS_TOOL_KERNEL_HOST_ONLY";
/** The scratch folder and web server of the examples' scenarios. */
async function startExampleWorld(dir: string): Promise<{ world: ExampleWorld; server: Server }> {
  const root = path.join(dir, "root");
  mkdirSync(path.join(root, "notes"), { recursive: true });
  writeFileSync(path.join(root, "notes/a.txt"), "one\ntwo\n");
  const server = createServer((request, response) => {
    if (request.url?.startsWith("/search")) {
      if (request.headers.authorization !== "Bearer k-secret") return void response.writeHead(401).end();
      response.writeHead(200, { "content-type": "application/json" });
      return void response.end(
        JSON.stringify({
          results: [{ title: "Kernels", url: "https://example.org/kernels", snippet: "about kernels" }],
        }),
      );
    }
    if (request.url === "/page")
      return void response.writeHead(200, { "content-type": "text/plain" }).end("a page for the kernel test");
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { world: { root, webOrigin: `http://127.0.0.1:${port}` }, server };
}

/** Prints the run's counts, each test's outcome and the scenarios' notes as `# ` lines. */
function report(tree: KernelTree, run: GoTestRun, seconds: number): void {
  const counts = countOutcomes(run.tests);
  const { snapshot } = tree;
  console.log(
    `# kernel ${snapshot.commit} (${path.basename(snapshot.file)}, sha256 ${snapshot.sha256.slice(0, 12)}), ${tree.goVersion}`,
  );
  console.log(
    `# go test -tags integration ./internal/pluginruntime/...: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (tests and subtests) in ${seconds.toFixed(1)} s`,
  );
  const groups = [
    [
      "the kernel's own integration tests, with the TypeScript fixture",
      run.tests.filter((o) => kernelIntegrationTests.includes(o.name)),
    ],
    ["harness-tool's scenarios through Launch", run.tests.filter((o) => o.name.startsWith("TestHarnessTool_"))],
    [
      "the package's unit tests",
      run.tests.filter((o) => !o.name.startsWith("TestHarnessTool_") && !kernelIntegrationTests.includes(o.name)),
    ],
  ] as const;
  for (const [label, tests] of groups) {
    const c = countOutcomes(tests);
    console.log(`#   ${label}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  }
  for (const line of outcomeLines(run.tests)) console.log(line);
  for (const line of run.notes) console.log(`# note: ${line}`);
}

const kernel = kernelOrSkip("kernel-launch");

test("the kernel's launcher (pluginruntime at the snapshot's commit) with TypeScript providers", {
  skip: "skip" in kernel ? kernel.skip : false,
}, async (t) => {
  if ("skip" in kernel) return;
  if ("failure" in kernel) throw kernel.failure;
  const tree = unpackKernel(kernel.snapshot, kernel.goVersion);
  installHarnessGoFiles(tree, providerArgv(kernelFixture));
  const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-kernel-run-"));
  const { world, server } = await startExampleWorld(dir);
  t.after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const manifest = await writeKernelLaunchManifest(dir, world, hostOnlyVariable);
  // The run's own TMPDIR, removed with it: the sockets of providers SIGKILLed on purpose, and the
  // fixture folder the kernel's TestMain leaves (its deferred RemoveAll never runs past os.Exit).
  const tmp = path.join(dir, "tmp");
  mkdirSync(tmp);

  const started = performance.now();
  const result = await runGoTest(
    tree,
    goTestEnvironment(tree, {
      HARNESS_TOOL_KERNEL_MANIFEST: manifest,
      TMPDIR: tmp,
      [hostOnlyVariable]: "1",
      ...supervisorUnderTest(),
      ...transportUnderTest(),
    }),
    ["-timeout", "10m", "./internal/pluginruntime/..."],
  );
  const run = parseGoTestJson(result.stdout);
  report(tree, run, (performance.now() - started) / 1000);

  const byName = new Map(run.tests.map((outcome) => [outcome.name, outcome]));
  const failure = (name: string) => {
    const outcome = byName.get(name);
    return outcome
      ? `${name}: ${outcome.action}\n${outcome.output}`
      : `${name} did not run:\n${run.packageOutput}${result.stderr}`;
  };

  await t.test("go test built and ran the package", () => {
    assert.ok(run.tests.length > 0, `no test ran:\n${run.packageOutput}${result.stderr}`);
  });
  await t.test(
    "the kernel's own integration test passes with the TypeScript fixture in place of testdata/plugin",
    async (t) => {
      for (const name of kernelIntegrationTests)
        await t.test(name, () => assert.equal(byName.get(name)?.action, "pass", failure(name)));
    },
  );
  await t.test("harness-tool's scenarios through Launch, the dispensed client and Close", async (t) => {
    const ours = run.tests.filter((outcome) => outcome.name.startsWith("TestHarnessTool_"));
    assert.ok(ours.length > 0, "none of harness-tool's Go tests ran");
    for (const outcome of ours)
      await t.test(outcome.name, () => assert.equal(outcome.action, "pass", failure(outcome.name)));
  });
  await t.test("the package's other tests pass beside them", () => {
    const failed = run.tests.filter(
      (outcome) =>
        !outcome.name.startsWith("TestHarnessTool_") && outcome.action !== "pass" && outcome.action !== "skip",
    );
    assert.deepEqual(
      failed.map((outcome) => outcome.name),
      [],
      failed.map((outcome) => failure(outcome.name)).join("\n"),
    );
  });
  await t.test("go test exits 0", () => assert.equal(result.code, 0, `${run.packageOutput}${result.stderr}`));
});
