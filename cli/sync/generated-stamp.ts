/**
 * Whether a repository's generated code was made from the protos it holds now. `npm run generate`
 * (buf generate, then `harness-tool sync --record-generated`) writes `generated-from.json` into the
 * plugin's output folder: the SHA-256 of every `.proto` under buf.gen.yaml's input directory. The
 * scaffold's prebuild (`harness-tool sync --check-generated`) and `harness-tool sync` compare it with
 * the protos on disk: content hashes, so a git checkout (which sets every mtime) changes nothing,
 * while an rpc added without regenerating is caught before the build bundles the old code.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** The file recording what the generated code was made from, in the plugin's output folder. */
export const stampFileName = "generated-from.json";

/** Where a repository's protos and generated code are, from its buf.gen.yaml. */
export interface GeneratedLayout {
  /** The folder holding buf.gen.yaml. */
  readonly root: string;
  /** buf.gen.yaml's input directory, relative to root (default `proto`). */
  readonly protos: string;
  /** protoc-gen-harness-tool's `out:`, relative to root (default `src/gen`). */
  readonly out: string;
}

/** What `generated-from.json` holds. */
interface Stamp {
  readonly protos: string;
  /** SHA-256 (hex) of each `.proto` file, by path relative to the protos folder ("/"-separated). */
  readonly files: Record<string, string>;
}

/** The layout of the nearest repository at or above `from` with a buf.gen.yaml, or undefined. */
export function findGeneratedLayout(from: string): GeneratedLayout | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const file = path.join(dir, "buf.gen.yaml");
    if (existsSync(file)) {
      const text = readFileSync(file, "utf8");
      const protos = /^\s*-\s*directory:\s*(\S+)\s*$/m.exec(text)?.[1] ?? "proto";
      const out =
        /^\s*-\s*local:\s*\S*protoc-gen-harness-tool\S*\s*\n\s*out:\s*(\S+)\s*$/m.exec(text)?.[1] ?? "src/gen";
      return { root: dir, protos, out };
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Every `.proto` under `folder`, by "/"-separated relative path, with its SHA-256. */
function protoHashes(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".proto")) {
        files[path.relative(folder, full).split(path.sep).join("/")] = createHash("sha256")
          .update(readFileSync(full))
          .digest("hex");
      }
    }
  };
  if (existsSync(folder)) walk(folder);
  return files;
}

/** Writes the stamp of the protos as they are now into the output folder (after `buf generate`). */
export function recordGenerated(layout: GeneratedLayout): string {
  const out = path.join(layout.root, layout.out);
  if (!existsSync(out))
    throw new Error(`${layout.out}/ does not exist: run buf generate first (npm run generate runs both)`);
  const stamp: Stamp = { protos: layout.protos, files: protoHashes(path.join(layout.root, layout.protos)) };
  const file = path.join(out, stampFileName);
  writeFileSync(file, `${JSON.stringify(stamp, null, 2)}\n`);
  return file;
}

/**
 * Why the generated code is not what the protos make now (one line, naming `npm run generate`),
 * or undefined when it is.
 */
export function generatedStaleness(layout: GeneratedLayout): string | undefined {
  const out = path.join(layout.root, layout.out);
  if (!existsSync(out))
    return `${layout.out}/ is missing: run npm run generate first (buf generate writes it from ${layout.protos}/)`;
  const file = path.join(out, stampFileName);
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(file, "utf8")) as Stamp;
  } catch {
    return `${layout.out}/ does not say which protos it was generated from (no ${stampFileName}): run npm run generate`;
  }
  const now = protoHashes(path.join(layout.root, layout.protos));
  const then = stamp.files ?? {};
  const changed = Object.keys(now).filter((f) => then[f] !== undefined && then[f] !== now[f]);
  const added = Object.keys(now).filter((f) => then[f] === undefined);
  const removed = Object.keys(then).filter((f) => now[f] === undefined);
  if (changed.length + added.length + removed.length === 0) return undefined;
  const named = (files: string[], what: string) =>
    files.length === 0 ? [] : [`${files.map((f) => `${layout.protos}/${f}`).join(", ")} ${what}`];
  const what = [...named(changed, "changed"), ...named(added, "added"), ...named(removed, "removed")].join("; ");
  return `${layout.out}/ is older than its protos (${what} since it was generated): run npm run generate`;
}
