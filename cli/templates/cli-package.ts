/** The CLI's own package (@harness-tool/cli): where it is installed and its version. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { harnessToolPackages } from "./package-sources.js";

const cliPackageName = harnessToolPackages.cli;

interface OwnPackage {
  readonly root: string;
  readonly version: string;
}

let found: OwnPackage | undefined;

/** The CLI's package.json in `dir`, if that is what `dir` holds. */
function cliPackageIn(dir: string): OwnPackage | undefined {
  const candidate = path.join(dir, "package.json");
  if (!existsSync(candidate)) return undefined;
  const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
  return pkg.name === cliPackageName && typeof pkg.version === "string"
    ? { root: dir, version: pkg.version }
    : undefined;
}

/** The nearest folder above this module (cli/ or its dist/) holding the CLI's package.json. */
function ownPackage(): OwnPackage {
  if (found) return found;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; ) {
    const own = cliPackageIn(dir);
    if (own) return (found = own);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`${cliPackageName}'s package.json was not found above its own module`);
    dir = parent;
  }
}

/** The version of the CLI package this module belongs to (the three harness-tool packages share it). */
export function packageVersion(): string {
  return ownPackage().version;
}

/** The directory of the CLI package this module belongs to. */
export function packageRoot(): string {
  return ownPackage().root;
}
