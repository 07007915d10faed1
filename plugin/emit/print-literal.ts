/**
 * JSON values as TypeScript literals, formatted the way a person would write them: unquoted keys
 * where they are identifiers, short arrays of strings on one line, two-space indentation.
 */

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as written in an object literal. */
export function literalKey(key: string): string {
  return identifier.test(key) ? key : JSON.stringify(key);
}

/** `value` as a TypeScript literal whose continuation lines start with `indent`. */
export function printLiteral(value: unknown, indent = ""): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every((v) => typeof v !== "object" || v === null)) {
      const flat = `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
      if (flat.length + indent.length <= 100) return flat;
    }
    return `[\n${value.map((v) => `${inner}${printLiteral(v, inner)},`).join("\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${literalKey(k)}: ${printLiteral(v, inner)},`).join("\n")}\n${indent}}`;
}
