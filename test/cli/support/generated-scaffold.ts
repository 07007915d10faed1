// A scaffold as `harness-tool init` writes it, generated with this checkout's plugin and installed
// as this checkout (its node_modules linked), for tests that launch it from its sources at
// seconds' cost (init-e2e does the same from the packed tarballs, at minutes').
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ExampleName, scaffoldFiles } from "../../../cli/templates/scaffold-files.js";
import { repoRoot, runBuf } from "../../support/buf.js";

/** Writes the `notes` scaffold with `examples` into a new temporary folder, runs buf generate in it, and returns the folder. */
export function generatedScaffold(examples: readonly ExampleName[], prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  for (const [file, text] of scaffoldFiles({
    name: "notes",
    source: "github.com/acme/provider-notes",
    examples,
    packages: { runtime: "*", plugin: "*", cli: "*" },
    directory: dir,
  })) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  // The plugin package's proto/ exists once it is packed; the checkout's protos are the same files.
  symlinkSync(path.join(repoRoot, "proto"), path.join(dir, "harness-proto"));
  writeFileSync(path.join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n  - path: harness-proto\n");
  const generated = runBuf(["generate"], dir);
  assert.equal(generated.status, 0, generated.stderr);
  return dir;
}
