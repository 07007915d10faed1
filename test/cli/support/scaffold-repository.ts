// A scaffold as `harness-tool init` writes it, generated with this checkout's plugin and run with
// its runtime (init-e2e does the same from the packed tarballs, at minutes' cost).
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ExampleName, scaffoldFiles } from "../../../cli/templates/scaffold-files.js";
import { repoRoot, runBuf } from "../../support/buf.js";

/** Writes the scaffold of `examples` into a new temp folder, as init would, and generates its code; returns the folder. */
export function scaffoldRepository(name: string, source: string, examples: readonly ExampleName[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-scaffold-"));
  const packages = { runtime: "*", plugin: "*", cli: "*" };
  for (const [file, text] of scaffoldFiles({ name, source, examples, packages, directory: dir })) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
  // The plugin package's proto/ exists once it is packed; the checkout's protos are the same files.
  symlinkSync(path.join(repoRoot, "proto"), path.join(dir, "harness-proto"));
  writeFileSync(path.join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: proto\n  - path: harness-proto\n");
  const generated = runBuf(["generate"], dir);
  if (generated.status !== 0) throw new Error(`buf generate failed in the scaffold:\n${generated.stderr}`);
  return dir;
}
