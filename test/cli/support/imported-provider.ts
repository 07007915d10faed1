// An MCP server imported with `harness-tool mcp import` (run in this process), generated with this
// checkout's plugin and launched through harness-tool/testing's go-plugin host with this checkout's
// runtime, as test/cli/scaffold-configure.test.ts does for init's scaffold.
import assert from "node:assert/strict";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, type LaunchedProvider } from "harness-tool/testing";
import { repoRoot, runBuf } from "../../support/buf.js";
import { typeScriptProvider } from "../../runtime/interop/providers.js";
import { cli, type CliRun } from "./run-cli.js";

/** Runs the import into `dir` (a new temp dir when absent); asserts it succeeded. */
export async function importServer(
  flags: string[],
  server: string[],
  dir?: string,
): Promise<{ dir: string; run: CliRun }> {
  const target = dir ?? path.join(mkdtempSync(path.join(tmpdir(), "harness-tool-mcp-import-")), "provider");
  const run = await cli([
    "mcp",
    "import",
    target,
    "--harness-tool",
    "*",
    ...flags,
    ...(server.length > 0 ? ["--", ...server] : []),
  ]);
  assert.equal(run.code, 0, run.err);
  return { dir: target, run };
}

/** Generates the imported provider's code with this checkout's plugin (node_modules and protos linked). */
export function generate(dir: string, first = true): void {
  if (first) {
    symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
    symlinkSync(path.join(repoRoot, "proto"), path.join(dir, "harness-proto"));
    writeFileSync(path.join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n  - path: harness-proto\n");
  }
  const generated = runBuf(["generate"], dir);
  assert.equal(generated.status, 0, generated.stderr);
}

/** Launches the imported provider's src/main.ts as the kernel would launch its build. */
export function launchImported(dir: string, env: Record<string, string> = {}): Promise<LaunchedProvider> {
  const entry = typeScriptProvider("imported", path.join(dir, "src/main.ts"));
  return launch(entry.command, {
    args: entry.args,
    cwd: dir,
    env: { ...process.env, ...env },
    handshakeTimeoutMs: 30_000,
  });
}
