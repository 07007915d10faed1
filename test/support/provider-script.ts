// An executable that starts a TypeScript provider the way the kernel starts a binary: one path,
// no shell features at launch. Node runs the file with tsx's loader in-process, resolving
// `harness-tool` to this checkout's sources.
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./buf.js";

const tsxLoader = path.join(repoRoot, "node_modules/tsx/dist/esm/index.mjs");

/** The command line that runs `fixture` (relative to the repository root) as a provider: node first. */
export function providerArgv(fixture: string): string[] {
  return [process.execPath, "--conditions=harness-tool-source", "--import", tsxLoader, path.join(repoRoot, fixture)];
}

/**
 * Writes `<dir>/<name>.sh` that execs node on `fixture` (relative to the repository root), with
 * `env` (NAME=value pairs) set for the provider only; returns its path.
 */
export function writeProviderScript(
  dir: string,
  name: string,
  fixture: string,
  env: Record<string, string> = {},
): string {
  const file = path.join(dir, `${name}.sh`);
  const assignments = Object.entries(env)
    .map(([k, v]) => `${k}='${v.replace(/'/g, "'\\''")}' `)
    .join("");
  const command = providerArgv(fixture)
    .map((arg) => `"${arg}"`)
    .join(" ");
  writeFileSync(file, `#!/bin/sh\n${assignments}exec ${command} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}
