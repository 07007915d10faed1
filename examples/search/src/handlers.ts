// glob and grep over the files under an allowed root, without a shell or external binaries.
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { SearchHandlers } from "./gen/examples/search/v1/search_tool.js";

/** A glob pattern as a regular expression over `/`-separated relative paths. */
export function globToRegExp(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*" && pattern[i + 1] === "*") {
      source += pattern[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += pattern[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

async function* walk(root: string, signal: AbortSignal, relative = ""): AsyncGenerator<string> {
  const entries = await readdir(path.join(root, relative), { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    signal.throwIfAborted();
    if (entry.name === "node_modules" || entry.name === ".git") continue;
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) yield* walk(root, signal, child);
    else if (entry.isFile()) yield child;
  }
}

/** The search provider's handlers. */
export const handlers: SearchHandlers = {
  async glob(input, context) {
    const root = context.resolvePath(input.path ?? ".");
    const max = context.config.max_results ?? 500;
    const matcher = globToRegExp(input.pattern);
    const files: string[] = [];
    for await (const file of walk(root, context.signal)) {
      if (!matcher.test(file)) continue;
      if (files.length === max) return { files, truncated: true };
      files.push(file);
    }
    return { files, truncated: false };
  },

  async grep(input, context) {
    const target = context.resolvePath(input.path ?? ".");
    const max = context.config.max_results ?? 500;
    const regex = new RegExp(input.pattern, input.ignore_case === true ? "i" : "");
    const include =
      input.include === undefined
        ? undefined
        : globToRegExp(input.include.includes("/") ? input.include : `**/${input.include}`);
    const isFile = (await stat(target)).isFile();
    const root = isFile ? path.dirname(target) : target;
    const files = isFile ? [path.basename(target)] : walk(root, context.signal);
    const matches: { file: string; line: number; text: string }[] = [];
    for await (const file of files) {
      if (include && !include.test(file)) continue;
      const text = await readFile(path.join(root, file), "utf8").catch(() => "");
      for (const [index, line] of text.split("\n").entries()) {
        if (!regex.test(line)) continue;
        if (matches.length === max) return { matches, truncated: true };
        matches.push({ file, line: index + 1, text: line });
      }
    }
    return { matches, truncated: false };
  },
};
