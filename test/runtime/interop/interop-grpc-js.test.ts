/**
 * The interop file's grpc-js leg: interop.test.ts (every host of the matrix: harness-tool/testing's,
 * go-plugin v1.8.0's plain and with AutoMTLS) run once more with HARNESS_TOOL_TRANSPORT=grpc-js, so
 * grpc-js's server, which a provider can still select, keeps the coverage of the default
 * (node:http2). launch() and go-plugin's host pass the variable on to every provider they start
 * (serve.test.ts proves launch()'s side). Skipped when this run already serves on grpc-js: the
 * file itself then runs on it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { buildGoHost } from "./go-host.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The whole interop file, on a loaded 2-core machine, takes a few minutes. */
const deadlineMs = 15 * 60_000;

/** Runs interop.test.ts with `env` added, as a run of its own; its exit code and output. */
function runInteropFile(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  // Without the runner's marker: inside a test file, node:test would otherwise skip running files.
  const { NODE_TEST_CONTEXT: _, ...outer } = process.env;
  const child = spawn(
    process.execPath,
    [
      path.join(root, "node_modules/tsx/dist/cli.mjs"),
      "--conditions=harness-tool-source",
      "--test",
      "--test-reporter=tap",
      "test/runtime/interop/interop.test.ts",
    ],
    { cwd: root, env: { ...outer, ...env }, stdio: ["ignore", "pipe", "pipe"], timeout: deadlineMs },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, output })));
}

test("interop.test.ts passes on grpc-js's server (HARNESS_TOOL_TRANSPORT=grpc-js), every host running scenarios", {
  skip: process.env.HARNESS_TOOL_TRANSPORT === "grpc-js" ? "this run serves on grpc-js already" : false,
  timeout: deadlineMs + 10_000,
}, async (t) => {
  const { code, output } = await runInteropFile({ HARNESS_TOOL_TRANSPORT: "grpc-js" });
  const failures = output.split("\n").filter((line) => /^\s*not ok /.test(line));
  assert.equal(code, 0, `interop.test.ts on grpc-js failed:\n${failures.join("\n")}\n${output.slice(-4000)}`);
  const counts = /# interop scenarios passed per host: (.*)/.exec(output)?.[1] ?? "";
  const passed = [...counts.matchAll(/: (\d+)/g)].map((m) => Number(m[1]));
  assert.equal(passed.length, 3, `the per-host count line is missing:\n${output.slice(-2000)}`);
  // Without Go (a developer machine) only the TypeScript host runs.
  const hosts = "skip" in buildGoHost() ? passed.slice(0, 1) : passed;
  for (const n of hosts) assert.ok(n > 0, `a host ran no scenario on grpc-js: ${counts}`);
  t.diagnostic(`on grpc-js, scenarios passed per host: ${counts}`);
});
