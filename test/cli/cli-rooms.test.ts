// The CLI's rooms (style.md: "a reader should know their room from the folder name and what they
// may touch from the imports"): each folder of cli/ is declared here with what it holds and the
// rooms it may import, so the imports run one way (commands on top, terminal at the bottom) and a
// new folder or a new arrow is a decision, not an accident.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "../support/buf.js";

const cliDir = path.join(repoRoot, "cli");

/** Each room, what it may import, and what it holds. */
const rooms: { readonly [room: string]: { readonly imports: readonly string[]; readonly holds: string } } = {
  ".": { imports: ["commands", "terminal", "templates"], holds: "the entry: main.ts (the command table) and the bin" },
  commands: {
    imports: ["provider", "check", "inspect", "sync", "templates", "terminal"],
    holds: "one file per command, the declaration they share and its parser",
  },
  provider: { imports: ["terminal"], holds: "the one rule for what <provider> names, and launching it" },
  check: { imports: ["provider", "terminal"], holds: "the conformance rules and their report" },
  inspect: { imports: ["provider", "terminal"], holds: "the inspector's session, server and page" },
  sync: { imports: [], holds: "adding the handlers new tools need" },
  templates: { imports: [], holds: "the files init writes, and the CLI's own package" },
  terminal: { imports: [], holds: "what a person reads: tables, widths, progress, names, usage errors" },
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // Build output, npm's folder, the page's committed bundle and init's template files are not code of a room.
    if (entry.isDirectory()) {
      if (!["dist", "node_modules", "page-dist"].includes(entry.name) && !/templates\/(provider|example-tools)$/.test(full)) out.push(...sourceFiles(full));
    } else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") && !entry.name.endsWith(".d.mts")) out.push(full);
  }
  return out;
}

function roomOf(file: string): string {
  const parts = path.relative(cliDir, file).split(path.sep);
  return parts.length === 1 ? "." : (parts[0] as string);
}

it("every folder of cli/ is a declared room", () => {
  const folders = readdirSync(cliDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !["dist", "node_modules"].includes(e.name))
    .map((e) => e.name)
    .sort();
  assert.deepEqual(
    folders,
    Object.keys(rooms)
      .filter((r) => r !== ".")
      .sort(),
  );
});

it("each room imports only the rooms it may", () => {
  const wrong: string[] = [];
  for (const file of sourceFiles(cliDir)) {
    const from = roomOf(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g)) {
      const to = roomOf(path.resolve(path.dirname(file), m[1] as string));
      if (to !== from && !rooms[from]?.imports.includes(to)) wrong.push(`${path.relative(repoRoot, file)} imports ${m[1]} (${from} -> ${to})`);
    }
  }
  assert.deepEqual(wrong, []);
});

it("the top level holds only the entry", () => {
  const files = readdirSync(cliDir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mjs)$/.test(e.name))
    .map((e) => e.name)
    .sort();
  assert.deepEqual(files, ["harness-tool.mjs", "main.ts"]);
});
