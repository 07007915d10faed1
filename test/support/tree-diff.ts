// Compares two folders file by file, for drift tests of committed generated code.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/** Every file path under `root`, relative to it, sorted. */
export function listFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(path.relative(root, full));
    }
  };
  walk(root);
  return out;
}

/**
 * The differences between the committed tree and a fresh one, as sentences naming each file that
 * is missing, extra, or different (with the first differing line).
 */
export function diffTrees(committedRoot: string, freshRoot: string, label: string): string[] {
  const committed = new Set(listFiles(committedRoot));
  const fresh = new Set(listFiles(freshRoot));
  const problems: string[] = [];
  for (const file of fresh) {
    if (!committed.has(file)) {
      problems.push(`${label}/${file} is generated but not committed`);
      continue;
    }
    const a = readFileSync(path.join(committedRoot, file), "utf8");
    const b = readFileSync(path.join(freshRoot, file), "utf8");
    if (a !== b) {
      const al = a.split("\n");
      const bl = b.split("\n");
      let line = 0;
      while (line < al.length && al[line] === bl[line]) line++;
      problems.push(
        `${label}/${file} differs from a fresh generation at line ${line + 1}: committed ${JSON.stringify(al[line] ?? "<end>")}, generated ${JSON.stringify(bl[line] ?? "<end>")}`,
      );
    }
  }
  for (const file of committed)
    if (!fresh.has(file)) problems.push(`${label}/${file} is committed but no longer generated`);
  return problems;
}
