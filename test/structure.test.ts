// The rooms of the three packages (docs/architecture.md; style.md: "a reader should know their room
// from the folder name and what they may touch from the imports"). Every source file lives in a
// room the tables of docs/architecture.md name, every import between rooms is one the table allows, the tables are
// acyclic, the packages reach each other only by package name, the ToolService semantics know
// nothing of go-plugin, the transport enters the service only by its doors, and only the exits hold
// the redactor. One exception to "no package reaches into another folder": the runtime's `generated`
// room is a link to the top-level generated/ (protoc-gen-es's output, which the runtime ships).
import assert from "node:assert/strict";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // Build output, npm's folder, the inspector page's committed bundle and init's template files
    // (the files of a new repository, not code of the CLI) are not rooms.
    if (entry.isDirectory()) {
      if (
        !["dist", "node_modules", "page-dist"].includes(entry.name) &&
        !/templates[\\/](provider|example-tools)$/.test(full)
      )
        out.push(...sourceFiles(full));
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** Relative module specifiers of a file: static imports, re-exports and dynamic import() calls. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g))
    found.push(m[1] as string);
  return found;
}

/** A cycle in a directed graph, as the list of its nodes (first repeated last), or undefined. */
export function findCycle(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    if (!state.has(node)) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

it("finds a cycle when there is one, and none in a chain", () => {
  const graph = (edges: string[]) => {
    const g = new Map<string, Set<string>>();
    for (const e of edges) {
      const [a, b] = e.split(">") as [string, string];
      (g.get(a) ?? g.set(a, new Set()).get(a)!).add(b);
    }
    return g;
  };
  assert.deepEqual(findCycle(graph(["kernel>transport", "transport>kernel"])), ["kernel", "transport", "kernel"]);
  assert.deepEqual(findCycle(graph(["a>b", "b>c", "c>a", "x>a"])), ["a", "b", "c", "a"]);
  assert.equal(findCycle(graph(["a>b", "b>c", "a>c"])), undefined);
  assert.deepEqual(
    relativeImports(
      `import { a } from "../x/a.js";\nexport * from './b.js';\nconst m = await import("../y/m.js");\nimport "./side.js";`,
    ),
    ["../x/a.js", "./b.js", "../y/m.js", "./side.js"],
  );
});

/**
 * Each package's rooms and the rooms each may import, read from docs/architecture.md: under the
 * heading `## <package>/`, the table whose columns are `room | holds | may import`. A room is a
 * folder (its files, not its sub-rooms), written `` `name/` ``; "." is the package's root files.
 * The last column lists room names only, separated by commas, or "—" for none. The tables are
 * written once, in the doc; this test holds the code to them.
 */
export function roomTables(doc: string): Record<string, Record<string, readonly string[]>> {
  const tables: Record<string, Record<string, string[]>> = {};
  let pkg: string | undefined;
  let inTable = false;
  for (const line of doc.split("\n")) {
    const heading = /^## ([a-z-]+)\/(?: |$)/.exec(line);
    if (heading) {
      pkg = heading[1];
      inTable = false;
      continue;
    }
    if (line.startsWith("## ")) pkg = undefined;
    if (pkg === undefined) continue;
    if (/^\| room \| holds \| may import \|$/.test(line)) {
      inTable = true;
      tables[pkg] ??= {};
      continue;
    }
    if (!inTable || line.startsWith("| ---")) continue;
    if (!line.startsWith("| ")) {
      inTable = false;
      continue;
    }
    const cells = line.split(" | ");
    const room = /^\| `([^`]+)` *$/.exec(cells[0] ?? "")?.[1]?.replace(/\/$/, "");
    const allowed = cells.at(-1)?.replace(/ *\|$/, "").trim() ?? "";
    assert.ok(
      room,
      `docs/architecture.md: a row of the ${pkg}/ table does not start with a room in backquotes: ${line}`,
    );
    const names = allowed === "—" ? [] : allowed.split(/, */);
    for (const name of names) {
      assert.match(
        name,
        /^[a-z./-]+$/,
        `docs/architecture.md: ${pkg}/ room ${room}: "may import" must list room names only, not "${name}"`,
      );
    }
    (tables[pkg] as Record<string, string[]>)[room] = names;
  }
  return tables;
}

const packages = roomTables(readFileSync(path.join(repoRoot, "docs/architecture.md"), "utf8"));

it("the room tables are read from docs/architecture.md, one per package", () => {
  assert.deepEqual(Object.keys(packages).sort(), ["cli", "plugin", "runtime"]);
  assert.ok(Object.keys(packages["runtime"] ?? {}).length > 10, "the runtime/ table was not read");
  const sample = roomTables(
    "## x/ (`x`)\n\n| room | holds | may import |\n| --- | --- | --- |\n| `a/` | the a | — |\n| `b/c/` | the c | a |\n| `.` | root | a, b/c |\n\ntext\n",
  );
  assert.deepEqual(sample, { x: { a: [], "b/c": ["a"], ".": ["a", "b/c"] } });
  assert.throws(
    () => roomTables("## x/\n| room | holds | may import |\n| --- | --- | --- |\n| `a/` | the a | b (prose) |\n"),
    /room names only/,
  );
});

/**
 * The room of a file: the deepest room of its package's table that holds its folder (a room's
 * sub-folders are part of it unless the table names them as rooms of their own); "." holds only
 * the package's root files.
 */
function roomIn(pkg: string, file: string): string | undefined {
  const rel = path.relative(path.join(repoRoot, pkg), path.dirname(file)).split(path.sep).join("/") || ".";
  const rooms = packages[pkg] ?? {};
  if (rel === ".") return "." in rooms ? "." : undefined;
  for (let dir = rel; dir !== "."; dir = path.posix.dirname(dir)) if (dir in rooms) return dir;
  return undefined;
}

/** Every import between files of `pkg`, as [from file, to file]. */
function packageImports(pkg: string): Array<[string, string]> {
  const dir = path.join(repoRoot, pkg);
  const edges: Array<[string, string]> = [];
  for (const file of sourceFiles(dir)) {
    for (const spec of relativeImports(readFileSync(file, "utf8"))) {
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts");
      edges.push([file, target]);
    }
  }
  return edges;
}

const shown = (file: string) => path.relative(repoRoot, file).split(path.sep).join("/");

for (const pkg of Object.keys(packages)) {
  it(`${pkg}/: every file is in a named room and imports only the rooms its table allows`, () => {
    const rooms = packages[pkg] ?? {};
    const files = sourceFiles(path.join(repoRoot, pkg));
    assert.ok(files.length > 10, `only ${files.length} files found under ${pkg}/: the walk is broken`);
    const homeless = files.filter((f) => roomIn(pkg, f) === undefined).map(shown);
    assert.deepEqual(
      homeless,
      [],
      `files outside the rooms of ${pkg}/ (add the room to the table and to docs/architecture.md)`,
    );
    const wrong: string[] = [];
    for (const [from, to] of packageImports(pkg)) {
      if (!to.startsWith(path.join(repoRoot, pkg) + path.sep)) {
        wrong.push(`${shown(from)} reaches out of ${pkg}/ to ${shown(to)} (import the package by its name)`);
        continue;
      }
      const a = roomIn(pkg, from);
      const b = roomIn(pkg, to);
      if (a !== undefined && b !== undefined && a !== b && !(rooms[a] ?? []).includes(b))
        wrong.push(`${shown(from)} (${a}) imports ${shown(to)} (${b})`);
    }
    assert.deepEqual(wrong, []);
  });

  it(`${pkg}/: the rooms' table has no cycle`, () => {
    const graph = new Map(Object.entries(packages[pkg] ?? {}).map(([room, allowed]) => [room, new Set(allowed)]));
    const cycle = findCycle(graph);
    assert.equal(cycle, undefined, `${pkg}/ rooms import each other in a cycle: ${cycle?.join(" -> ")}`);
  });
}

it("runtime/generated is the one link out of a package's folder: to the top-level generated/", () => {
  // The package exports `./generated/*` (a package's exports cannot leave its folder), its build
  // compiles it into dist/generated/, and its files import it as their `generated` room; the files
  // live once, where buf.gen.yaml writes them. The walk above does not follow the link.
  const links: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) links.push(`${shown(full)} -> ${readlinkSync(full)}`);
      else if (entry.isDirectory() && !["dist", "node_modules"].includes(entry.name)) walk(full);
    }
  };
  for (const pkg of Object.keys(packages)) walk(path.join(repoRoot, pkg));
  assert.deepEqual(links, ["runtime/generated -> ../generated"]);
  assert.ok(lstatSync(path.join(repoRoot, "generated")).isDirectory(), "generated/ is a folder at the top level");
});

it("the CLI's top level holds only the entry", () => {
  const files = readdirSync(path.join(repoRoot, "cli"), { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mjs)$/.test(e.name))
    .map((e) => e.name)
    .sort();
  assert.deepEqual(files, ["harness-tool.mjs", "main.ts"]);
});

it("the service knows nothing of go-plugin, and the transport enters the service only by its doors", () => {
  // The doors: what the service offers the transport, and what it asks of it.
  const doors = new Set([
    "runtime/service/calls/tool-service-core.ts",
    "runtime/service/hooks/hook-service-core.ts",
    "runtime/service/kernel/kernel-client.ts",
  ]);
  const wrong: string[] = [];
  for (const [from, to] of packageImports("runtime")) {
    const a = roomIn("runtime", from) ?? "";
    const b = roomIn("runtime", to) ?? "";
    if (a.startsWith("service") && (b.startsWith("transport") || b === "host" || b === "testing"))
      wrong.push(`${shown(from)} imports ${shown(to)}`);
    if (a.startsWith("transport") && b.startsWith("service") && !doors.has(shown(to)))
      wrong.push(`${shown(from)} imports ${shown(to)}, not a door`);
  }
  assert.deepEqual(wrong, []);
});

it("only the exits hold the redactor: no other runtime file imports it", () => {
  // redaction/index.ts is the `harness-tool/redaction` entry: it re-exports the rules for the inspector.
  const redactor = "runtime/redaction/redact-secrets.ts";
  const allowed = new Set(["runtime/service/calls/secret-exits.ts", "runtime/redaction/index.ts"]);
  const importers = packageImports("runtime")
    .filter(([, to]) => shown(to) === redactor)
    .map(([from]) => shown(from));
  assert.ok(importers.includes("runtime/service/calls/secret-exits.ts"), "the exits import the redactor");
  assert.deepEqual(
    importers.filter((f) => !allowed.has(f)),
    [],
  );
});

it("only the CLI's mcp rooms load the MCP SDK (every command module loads for --help)", () => {
  const loaders = sourceFiles(path.join(repoRoot, "cli"))
    .filter((file) => /^import (?!type )[^;]*from "@modelcontextprotocol\/sdk/m.test(readFileSync(file, "utf8")))
    .map(shown);
  assert.ok(loaders.includes("cli/mcp/serve/mcp-server.ts"), "the walk is broken: mcp serve loads the SDK");
  assert.deepEqual(
    loaders.filter((file) => !file.startsWith("cli/mcp/")),
    [],
  );
});
