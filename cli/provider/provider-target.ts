/**
 * The one rule for what `<provider>` names, shared by schema, invoke, hook, check and inspect:
 *
 * - a provider folder: its entry (src/main.ts, as a scaffold and every example have, or one of
 *   `entryNames`), started as below;
 * - a TypeScript entry (`.ts`, `.mts`, `.cts`): started with Node through tsx's loader, which the
 *   CLI brings, so a fresh scaffold runs `src/main.ts` with nothing more installed;
 * - an executable file: started as it is, as the kernel starts a provider (no shell);
 * - a JavaScript entry (`.js`, `.mjs`, `.cjs`) that is not executable: started with Node;
 * - a bare name (no `/`, no .ts or .js ending) that is not a folder here: looked up on PATH, as
 *   the kernel would.
 *
 * Anything else is refused before launching, with what to do (exit 2). The kernel itself launches
 * only executables: `check` on sources tests the handlers, and `check dist/provider.mjs` what ships.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { missingFileText } from "../terminal/fault-wording.js";
import { UsageError } from "../terminal/usage-error.js";
import { isRuntimeCheckout, runtimeRootFrom, sourceCondition } from "./runtime-sources.js";

/** The executable and its arguments: what is spawned. */
export interface ProviderCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** The provider could not be started, or never completed its handshake: exit 2. */
export class ProviderLaunchError extends UsageError {}

/** What a provider folder is started from, first found first. */
export const entryNames = [
  "src/main.ts",
  "src/main.mts",
  "src/main.js",
  "src/main.mjs",
  "main.ts",
  "main.js",
  "main.mjs",
] as const;

const typeScript = /\.(c|m)?ts$/;
const javaScript = /\.(c|m)?js$/;

/** What `npm run build` makes in a scaffold, named where a target is missing or not executable. */
export const bundleHint = "`npm run build` writes dist/provider.mjs (harness-tool bundle), the executable to launch";

function refuse(problem: string): ProviderLaunchError {
  return new ProviderLaunchError(`cannot launch the provider: ${problem}`);
}

/**
 * True when `target` names a file or folder here rather than a command on PATH. A name ending in
 * .ts or .js is a file even when missing (no one puts `main.ts` on PATH): it is reported missing,
 * not looked up.
 */
function isPathTarget(target: string): boolean {
  if (target.includes("/") || target.includes(path.sep) || typeScript.test(target) || javaScript.test(target))
    return true;
  return existsSync(target) && statSync(target).isDirectory();
}

/** The entry file of a provider folder. */
function folderEntry(folder: string): string {
  const entry = entryNames.map((name) => path.join(folder, name)).find((candidate) => existsSync(candidate));
  if (entry) return entry;
  const example =
    path.basename(path.resolve(folder)) === "dist" ? path.join(folder, "provider.mjs") : "dist/provider.mjs";
  throw refuse(
    `${folder} is a folder without a provider entry (looked for ${entryNames.join(", ")}): give the provider's executable, e.g. ${example}`,
  );
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** tsx's ESM loader, from the CLI's own dependencies. */
function tsxLoader(): string {
  try {
    return createRequire(import.meta.url).resolve("tsx/esm");
  } catch {
    throw refuse(
      "tsx, which @harness-tool/cli depends on to start TypeScript, is not installed beside it: reinstall @harness-tool/cli",
    );
  }
}

/**
 * Node through tsx on a TypeScript entry. In this repository's checkout (cli/provider/runtime-sources.ts)
 * the provider's `harness-tool` resolves to its sources, as the bin's does.
 */
function typeScriptCommand(file: string, args: readonly string[]): ProviderCommand {
  const absolute = path.resolve(file);
  const conditions = isRuntimeCheckout(runtimeRootFrom(path.dirname(absolute)))
    ? [`--conditions=${sourceCondition}`]
    : [];
  return {
    command: process.execPath,
    args: [...conditions, "--import", pathToFileURL(tsxLoader()).href, absolute, ...args],
  };
}

/** The command that starts `target`, with `args` (what followed `--`) for the provider itself. */
export function providerTarget(target: string, args: readonly string[] = []): ProviderCommand {
  if (!isPathTarget(target)) return { command: target, args: [...args] };
  if (!existsSync(target)) {
    const underDist = target.split(/[/\\]/).includes("dist");
    throw refuse(`${missingFileText(target)}${underDist ? `: build it first (${bundleHint})` : ""}`);
  }
  const file = statSync(target).isDirectory() ? folderEntry(target) : target;
  if (typeScript.test(file)) return typeScriptCommand(file, args);
  if (isExecutable(file)) return { command: file, args: [...args] };
  if (javaScript.test(file)) return { command: process.execPath, args: [path.resolve(file), ...args] };
  throw refuse(
    `${file} is not executable: chmod +x ${file}, or launch dist/provider.mjs, which harness-tool bundle makes executable`,
  );
}
