/**
 * Checks JSON values against a schema of the common subset by walking the schema. Generated
 * providers use validators compiled at generation time instead; this serves hand-written tools
 * and `harness-tool check`, which only has the wire schemas.
 */
import type { JsonSchema } from "./json-schema.js";
import type { ValueValidator, ValueViolation } from "./value-violation.js";

/**
 * One JSON Pointer segment for a property name (`~` and `/` escaped). The validators
 * protoc-gen-harness-tool compiles use it too, so a violation's path is written one way.
 */
export function escapePointer(segment: string): string {
  // Hot path: almost no property name holds "~" or "/", so skip the regexes then.
  if (!segment.includes("~") && !segment.includes("/")) return segment;
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * The JSON type of `value` as the violation messages name it ("a string", "null", "an array", ...).
 * The validators protoc-gen-harness-tool compiles use it too, so both say the same thing.
 */
export function typeOfJson(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return Number.isFinite(value) ? "a number" : "a non-finite number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

function walk(schema: JsonSchema, value: unknown, path: string, out: ValueViolation[]): void {
  switch (schema.type) {
    case "string":
      if (typeof value !== "string") out.push({ path, message: `must be a string, not ${typeOfJson(value)}` });
      else if (schema.enum && !schema.enum.includes(value)) {
        out.push({ path, message: `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}` });
      }
      return;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) out.push({ path, message: `must be a number, not ${typeOfJson(value)}` });
      return;
    case "boolean":
      if (typeof value !== "boolean") out.push({ path, message: `must be a boolean, not ${typeOfJson(value)}` });
      return;
    case "array":
      if (!Array.isArray(value)) {
        out.push({ path, message: `must be an array, not ${typeOfJson(value)}` });
        return;
      }
      for (let i = 0; i < value.length; i++) walk(schema.items, value[i], `${path}/${i}`, out);
      return;
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        out.push({ path, message: `must be an object, not ${typeOfJson(value)}` });
        return;
      }
      const record = value as Record<string, unknown>;
      for (const name of schema.required ?? []) {
        if (record[name] === undefined) out.push({ path: `${path}/${escapePointer(name)}`, message: "is required" });
      }
      for (const [name, field] of Object.entries(record)) {
        const child = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
        const childPath = `${path}/${escapePointer(name)}`;
        // Closed objects: the model sometimes invents fields; naming them helps it correct itself.
        if (!child) out.push({ path: childPath, message: "is not a known property" });
        else if (field !== undefined) walk(child, field, childPath, out);
      }
      return;
    }
  }
}

/** Every violation of `schema` by `value`; empty when the value conforms. */
export function validateValue(schema: JsonSchema, value: unknown): ValueViolation[] {
  const out: ValueViolation[] = [];
  walk(schema, value, "", out);
  return out;
}

/** A validator bound to one schema. */
export function validatorFor(schema: JsonSchema): ValueValidator {
  return (value) => validateValue(schema, value);
}
