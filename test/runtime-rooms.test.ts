// The runtime's rooms (style.md: "a reader should know their room from the folder name and what
// they may touch from the imports"): the folders of runtime/ import each other without a cycle, the
// ToolService semantics know nothing of go-plugin, and the transport reaches the service only
// through its doors.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { it } from "node:test";
import { repoRoot } from "./support/buf.js";

const runtimeDir = path.join(repoRoot, "runtime");

/** The runtime folder of a file: its first directory under runtime/, "." for runtime/*.ts. */
function roomOf(file: string): string {
  const parts = path.relative(runtimeDir, file).split(path.sep);
  return parts.length === 1 ? "." : (parts[0] as string);
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    // dist/ is a build of these files, node_modules/ is npm's: neither is a room.
    if (entry.isDirectory()) {
      if (entry.name !== "dist" && entry.name !== "node_modules") out.push(...sourceFiles(full));
    } else if (entry.name.endsWith(".ts")) out.push(full);
  }
  return out;
}

/** Relative module specifiers of a file: static imports, re-exports and dynamic import() calls. */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g)) found.push(m[1] as string);
  return found;
}

/** Every import between files of runtime/, as [from file, to file]. */
function runtimeImports(): Array<[string, string]> {
  const edges: Array<[string, string]> = [];
  for (const file of sourceFiles(runtimeDir)) {
    for (const spec of relativeImports(readFileSync(file, "utf8"))) {
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, ".ts");
      if (target.startsWith(runtimeDir + path.sep)) edges.push([file, target]);
    }
  }
  return edges;
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
  assert.deepEqual(relativeImports(`import { a } from "../x/a.js";\nexport * from './b.js';\nconst m = await import("../y/m.js");\nimport "./side.js";`), [
    "../x/a.js",
    "./b.js",
    "../y/m.js",
    "./side.js",
  ]);
});

it("the folders of runtime/ import each other without a cycle", () => {
  const edges = runtimeImports();
  assert.ok(edges.length > 100, `only ${edges.length} imports found: the walk is broken`);
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (a !== b) (graph.get(a) ?? graph.set(a, new Set()).get(a)!).add(b);
  }
  const cycle = findCycle(graph);
  assert.equal(cycle, undefined, `runtime/ folders import each other in a cycle: ${cycle?.join(" -> ")}`);
});

it("the service knows nothing of go-plugin, and the transport enters the service only by its doors", () => {
  // The doors: what the service offers the transport, and what it asks of it.
  const doors = new Set(["service/tool-service-core.ts", "service/kernel-client.ts"]);
  const wrong: string[] = [];
  for (const [from, to] of runtimeImports()) {
    const a = roomOf(from);
    const b = roomOf(to);
    const target = path.relative(runtimeDir, to).split(path.sep).join("/");
    if (a === "service" && (b === "transport" || b === "go-plugin-host")) wrong.push(`${path.relative(repoRoot, from)} imports ${target}`);
    if (a === "transport" && b === "service" && !doors.has(target)) wrong.push(`${path.relative(repoRoot, from)} imports ${target}, not a door`);
  }
  assert.deepEqual(wrong, []);
});

it("only the exits hold the redactor: no other runtime file imports it (the index re-exports the marker)", () => {
  // redaction.ts is the `harness-tool/redaction` entry: it re-exports the rules for the inspector.
  const allowed = new Set(["service/secret-exits.ts", "index.ts", "redaction.ts"]);
  const importers = runtimeImports()
    .filter(([, to]) => path.relative(runtimeDir, to).split(path.sep).join("/") === "service/redact-secrets.ts")
    .map(([from]) => path.relative(runtimeDir, from).split(path.sep).join("/"));
  assert.ok(importers.includes("service/secret-exits.ts"), "the exits import the redactor");
  assert.deepEqual(
    importers.filter((f) => !allowed.has(f)),
    [],
  );
  const index = readFileSync(path.join(runtimeDir, "index.ts"), "utf8");
  assert.match(index, /export \{ redactionMarker \} from "\.\/service\/redact-secrets\.js";/, "the index exports the marker and nothing else of the redactor");
});
