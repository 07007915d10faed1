/**
 * JSON values as TypeScript literals for `f.print`, formatted the way a person would write them:
 * strings through protoplugin's `f.string`, unquoted keys where they are identifiers, short
 * arrays of scalars on one line, two-space indentation.
 */
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as written in an object literal. */
function literalKey(f: GeneratedFile, key: string): Printable {
  return identifier.test(key) ? key : f.string(key);
}

function scalar(f: GeneratedFile, value: unknown): Printable {
  return typeof value === "string" ? f.string(value) : JSON.stringify(value);
}

/** An object whose values are all scalars, on one line when that stays within 100 characters. */
function oneLineObject(
  f: GeneratedFile,
  entries: readonly [string, unknown][],
  indent: string,
): Printable[] | undefined {
  if (!entries.every(([, v]) => typeof v !== "object" || v === null)) return undefined;
  const width = entries.reduce<number>(
    (sum, [k, v]) => sum + k.length + JSON.stringify(v).length + 4,
    indent.length + 4,
  );
  if (width > 100) return undefined;
  return [
    "{ ",
    ...entries.flatMap(([k, v], i) => [...(i > 0 ? [", "] : []), literalKey(f, k), ": ", scalar(f, v)]),
    " }",
  ];
}

/**
 * `value` as a literal whose continuation lines start with `indent`. `compact`: objects of
 * scalars on one line too, where they fit.
 */
export function printLiteral(f: GeneratedFile, value: unknown, indent = "", compact = false): Printable[] {
  if (value === null || typeof value !== "object") return [scalar(f, value)];
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return ["[]"];
    if (value.every((v) => typeof v !== "object" || v === null)) {
      const width = value.reduce<number>((sum, v) => sum + JSON.stringify(v).length + 2, indent.length);
      if (width <= 100) return [f.array(value.map((v) => scalar(f, v)))];
    }
    return ["[\n", ...value.flatMap((v) => [inner, ...printLiteral(f, v, inner, compact), ",\n"]), indent, "]"];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return ["{}"];
  const line = compact ? oneLineObject(f, entries, indent) : undefined;
  if (line !== undefined) return line;
  return [
    "{\n",
    ...entries.flatMap(([k, v]) => [inner, literalKey(f, k), ": ", ...printLiteral(f, v, inner, compact), ",\n"]),
    indent,
    "}",
  ];
}
