/**
 * The author's file system kept out of what the model reads. A thrown error's message names files
 * by their absolute paths (`/home/ada/notes/node_modules/better-sqlite3/lib/database.js`); the
 * `unknown` ToolError the kernel shows the model names them relative to what they are: a package
 * (`node_modules/better-sqlite3/lib/database.js`), the provider's own folder (`<provider>/src/db.ts`)
 * or the home directory (`~/notes.db`). Any other path is left as it is: a path the tool was given
 * (its argument, its working directory) is what the model needs to read back. docs/runtime.md#errors.
 */
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The folders whose paths are reduced, longest first; computed once. */
interface PathRoots {
  readonly provider: string | undefined;
  readonly home: string | undefined;
}

let roots: PathRoots | undefined;

/** The provider's folder: the nearest folder holding a package.json above its entry, else the entry's folder. */
function providerFolder(entry: string | undefined): string | undefined {
  if (entry === undefined || !path.isAbsolute(entry)) return undefined;
  const start = path.dirname(entry);
  const isRoot = (dir: string) => path.dirname(dir) === dir;
  for (let dir = start; !isRoot(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
  }
  return isRoot(start) ? undefined : start;
}

function pathRoots(): PathRoots {
  if (roots) return roots;
  let home: string | undefined;
  try {
    home = os.homedir();
  } catch {
    home = undefined;
  }
  roots = { provider: providerFolder(process.argv[1]), home: home && home !== "/" ? home : undefined };
  return roots;
}

/** For tests: the folders to reduce (undefined: found again from process.argv[1] and the home directory). */
export function setMachinePathRoots(next: PathRoots | undefined): void {
  roots = next;
}

/** An absolute path, or a file: URL of one, up to a space, a quote, a bracket or a comma. */
const absolutePath = /(?:file:\/\/)?\/[^\s'"`()<>[\]{},;]+/g;

/** `dir/rest` as `label/rest` when `file` is inside `dir`; undefined otherwise. */
function under(file: string, dir: string | undefined, label: string): string | undefined {
  if (dir === undefined) return undefined;
  if (file === dir) return label;
  return file.startsWith(`${dir}/`) ? `${label}/${file.slice(dir.length + 1)}` : undefined;
}

/** One absolute path as the model may read it. */
function reducePath(found: string): string {
  // `//host/...`: the rest of a URL (https://registry.npmjs.org/...), not a file.
  if (found.startsWith("//")) return found;
  let file = found;
  if (file.startsWith("file://")) {
    try {
      file = fileURLToPath(file);
    } catch {
      return found;
    }
  }
  const packages = file.lastIndexOf("/node_modules/");
  if (packages !== -1) return file.slice(packages + 1);
  const { provider, home } = pathRoots();
  return under(file, provider, "<provider>") ?? under(file, home, "~") ?? found;
}

/**
 * `text` with the absolute paths of installed packages, the provider's folder and the home
 * directory reduced (`node_modules/<package>/…`, `<provider>/…`, `~/…`); other text unchanged.
 */
export function reduceMachinePaths(text: string): string {
  if (!text.includes("/")) return text;
  return text.replace(absolutePath, reducePath);
}
