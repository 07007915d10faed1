/**
 * The providers the interop scenarios launch, as the kernel would exec them: the sample provider
 * of the transport tests, and every example under examples/ that has an entry point.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ProviderCommand } from "./scenario-host.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const tsxLoader = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href;

/**
 * A TypeScript entry point run directly by node with tsx's loader in-process (one process, as a
 * compiled provider is; `tsx` the CLI would add a parent process between host and provider).
 */
export function typeScriptProvider(name: string, file: string): ProviderCommand {
  return {
    name,
    command: process.execPath,
    args: ["--conditions=harness-tool-source", "--import", tsxLoader, path.resolve(repoRoot, file)],
    cwd: repoRoot,
  };
}

/** The sample provider (defineTool, defineProvider, serve) of test/runtime/transport/fixtures. */
export const sampleProvider = typeScriptProvider("sample", "test/runtime/transport/fixtures/sample-provider.ts");

/** A provider whose entry point throws before serve() (test/runtime/interop/fixtures). */
export const throwsAtStartProvider = typeScriptProvider(
  "throws-at-start",
  "test/runtime/interop/fixtures/throws-at-start.ts",
);

/**
 * `provider` started through env(1) with `variables` set over what the host gives it: a kernel
 * whose go-plugin offers another protocol version, or a garbled AutoMTLS certificate.
 */
export function withEnvironment(
  provider: ProviderCommand,
  name: string,
  variables: Record<string, string>,
): ProviderCommand {
  return {
    ...provider,
    name,
    command: "/usr/bin/env",
    args: [...Object.entries(variables).map(([k, v]) => `${k}=${v}`), provider.command, ...provider.args],
  };
}

/** A provider producing output far faster than a slow kernel reads (test/runtime/interop/fixtures). */
export const floodProvider = typeScriptProvider("flood", "test/runtime/interop/fixtures/flood-provider.ts");

/** A provider whose declarations break a rule serve() checks (a duplicate tool name). */
export const brokenProvider = typeScriptProvider(
  "broken-declarations",
  "test/runtime/transport/fixtures/broken-provider.ts",
);

/** examples/<name>/src/main.ts, for each example that has one. */
export function exampleProviders(): ProviderCommand[] {
  const dir = path.join(repoRoot, "examples");
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, "src", "main.ts")))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((e) => typeScriptProvider(`examples/${e.name}`, path.join("examples", e.name, "src", "main.ts")));
}
