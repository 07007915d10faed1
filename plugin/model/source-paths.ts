/**
 * The path a diagnostic names a proto file by: the one buf itself prints, from the folder buf runs
 * in (a provider repository's root: `proto/weather/v1/weather.proto:30:7`), so an editor or a
 * terminal can open it. buf sends the plugin each file's name inside its module
 * (`weather/v1/weather.proto`), and runs a local plugin in its own working directory; the module
 * folders are the ones the repository's buf files name (buf.yaml's `modules[].path`, buf.work.yaml's
 * `directories`, buf.gen.yaml's `inputs[].directory`), then its direct sub-folders. The first
 * folder that holds the file names it; a file found nowhere keeps its module name.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** The buf files whose folder entries name module folders, in the order they are read. */
const bufFiles = ["buf.yaml", "buf.work.yaml", "buf.gen.yaml"] as const;

/** Sub-folders never searched: installed packages and generated or hidden folders. */
const skipped = new Set(["node_modules", "dist", "build", "gen"]);

/**
 * Folder values in buf's YAML: `path: x` and `directory: x` entries, and the list items under a
 * `directories:` key (buf.work.yaml). A line parse, not a YAML parser: these files hold plain
 * scalars, and a value this misses only costs the sub-folder search.
 */
export function moduleFoldersIn(yaml: string): string[] {
  const folders: string[] = [];
  let inDirectories = false;
  for (const raw of yaml.split(/\r?\n/)) {
    const line = raw.replace(/\s+#.*$/, "");
    const entry = /^\s*(?:-\s+)?(path|directory):\s*(.+?)\s*$/.exec(line);
    if (entry?.[2] !== undefined) folders.push(unquote(entry[2]));
    if (/^\S/.test(line)) inDirectories = /^directories:\s*$/.test(line);
    else if (inDirectories) {
      const item = /^\s*-\s+(.+?)\s*$/.exec(line);
      if (item?.[1] !== undefined) folders.push(unquote(item[1]));
    }
  }
  return folders;
}

function unquote(value: string): string {
  return value.replace(/^(["'])(.*)\1$/, "$2");
}

/** The folders (relative to `root`) a module file may sit under, most likely first, each once. */
export function candidateFolders(root: string): string[] {
  const folders: string[] = [];
  for (const name of bufFiles) {
    const file = path.join(root, name);
    if (existsSync(file)) folders.push(...moduleFoldersIn(readFileSync(file, "utf8")));
  }
  let entries: string[] = [];
  try {
    entries = readdirSync(root).sort();
  } catch {
    // An unreadable root: only the declared folders.
  }
  for (const name of entries) {
    if (name.startsWith(".") || skipped.has(name)) continue;
    try {
      if (statSync(path.join(root, name)).isDirectory()) folders.push(name);
    } catch {
      // Gone or unreadable: not a candidate.
    }
  }
  const normal = folders.map((f) => path.normalize(f)).filter((f) => !path.isAbsolute(f) && !f.startsWith(".."));
  return [...new Set(normal)].filter((f) => f !== ".");
}

/**
 * A function from a proto file's module name to the path buf would print for it, relative to
 * `root` (the folder buf runs in). A file at the root itself (a module at the repository's root)
 * and a file found in no folder keep their names.
 */
export function sourcePathsFrom(root: string): (file: string) => string {
  let folders: string[] | undefined;
  const found = new Map<string, string>();
  return (file) => {
    const cached = found.get(file);
    if (cached !== undefined) return cached;
    let named = file;
    if (!path.isAbsolute(file) && !isFile(path.join(root, file))) {
      folders ??= candidateFolders(root);
      const folder = folders.find((f) => isFile(path.join(root, f, file)));
      if (folder !== undefined) named = path.join(folder, file).split(path.sep).join("/");
    }
    found.set(file, named);
    return named;
  };
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
