/**
 * What `harness-tool inspect <provider>` starts. An executable is started as it is, as the kernel
 * starts it. For convenience while writing a provider, a TypeScript or JavaScript entry file, or a
 * provider folder holding src/main.ts (as every example does), is started with Node, through tsx's
 * loader for TypeScript, so `harness-tool inspect examples/exec` works on a fresh clone.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { packageRoot as cliPackageRoot } from "../package-version.js";
import type { ProviderCommand } from "./provider-command.js";
import { isRuntimeCheckout, runtimeRootFrom, sourceCondition } from "./runtime-sources.js";
import { UsageError } from "../commands/usage-error.js";

const entryNames = ["src/main.ts", "src/main.mts", "src/main.js", "src/main.mjs", "main.ts", "main.js", "main.mjs"];

const packageRoot = cliPackageRoot();
/**
 * In a checkout (or with a runtime never built), `harness-tool` resolves to its TypeScript sources,
 * as the bin does: the provider must see the same runtime the CLI does.
 */
const useSources = isRuntimeCheckout(runtimeRootFrom(path.dirname(fileURLToPath(import.meta.url))));

/** tsx's ESM loader, found from `from` upwards, then from harness-tool's own installation. */
function findTsxLoader(from: string): string | undefined {
  for (const start of [from, packageRoot]) {
    for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
      const loader = path.join(dir, "node_modules/tsx/dist/esm/index.mjs");
      if (existsSync(loader)) return loader;
      if (path.dirname(dir) === dir) break;
    }
  }
  return undefined;
}

/** The command that starts `target` (plus the provider's own arguments). */
export function providerTarget(target: string, args: readonly string[]): ProviderCommand {
  let file = target;
  if (existsSync(target) && statSync(target).isDirectory()) {
    const entry = entryNames.map((name) => path.join(target, name)).find((candidate) => existsSync(candidate));
    if (!entry) throw new UsageError(`${target} is a folder without a provider entry (looked for ${entryNames.join(", ")}); pass the provider's executable`);
    file = entry;
  }
  if (/\.(c|m)?ts$/.test(file)) {
    if (!existsSync(file)) throw new UsageError(`no file ${file}`);
    const loader = findTsxLoader(path.dirname(path.resolve(file)));
    if (!loader) throw new UsageError(`${file} is TypeScript, and tsx is not installed to run it: \`npm install --save-dev tsx\`, or pass the built provider`);
    const conditions = useSources ? [`--conditions=${sourceCondition}`] : [];
    return { command: process.execPath, args: [...conditions, "--import", pathToFileURL(loader).href, path.resolve(file), ...args] };
  }
  if (/\.(c|m)?js$/.test(file)) {
    if (!existsSync(file)) throw new UsageError(`no file ${file}`);
    return { command: process.execPath, args: [path.resolve(file), ...args] };
  }
  return { command: target, args: [...args] };
}
