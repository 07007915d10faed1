/** harness-tool's own package: where it is installed and its version (from the sources or dist/). */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface OwnPackage {
  readonly root: string;
  readonly version: string;
}

let found: OwnPackage | undefined;

/** harness-tool's package.json in `dir`, if that is what `dir` holds. */
function harnessToolPackageIn(dir: string): OwnPackage | undefined {
  const candidate = path.join(dir, "package.json");
  if (!existsSync(candidate)) return undefined;
  const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
  return pkg.name === "harness-tool" && typeof pkg.version === "string" ? { root: dir, version: pkg.version } : undefined;
}

function ownPackage(): OwnPackage {
  if (found) return found;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const own = harnessToolPackageIn(dir);
    if (own) {
      // tsc copies package.json into dist/ (plugin/plugin-version.ts imports it): the package is
      // the folder above that copy, where npm installed it.
      const parent = path.basename(dir) === "dist" ? harnessToolPackageIn(path.dirname(dir)) : undefined;
      return (found = parent ?? own);
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("harness-tool's package.json was not found above its own module");
    dir = parent;
  }
}

/** The version of the harness-tool package this module belongs to. */
export function packageVersion(): string {
  return ownPackage().version;
}

/** The directory of the harness-tool package this module belongs to. */
export function packageRoot(): string {
  return ownPackage().root;
}
