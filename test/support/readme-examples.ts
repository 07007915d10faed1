// Reads the code blocks the README marks with `<!-- example: NAME -->`, so tests run exactly what
// the documentation tells users to write.
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./buf.js";

/** The body of the fenced code block that follows `<!-- example: name -->` in README.md. */
export function readmeExample(name: string): string {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const marker = `<!-- example: ${name} -->`;
  const start = readme.indexOf(marker);
  if (start < 0) throw new Error(`README.md has no example marked ${marker}`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(readme.slice(start + marker.length));
  if (!match?.[1]) throw new Error(`README.md has no code block after ${marker}`);
  return match[1];
}

/** Every TypeScript block marked `<!-- example: name -->` in a documentation file (relative to the repository), by name. */
export function markedTypeScriptExamples(file: string): { readonly name: string; readonly code: string }[] {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  return [...text.matchAll(/<!-- example: ([\w-]+) -->\s*```ts\n([\s\S]*?)```/g)].map((m) => ({
    name: m[1] as string,
    code: m[2] as string,
  }));
}
