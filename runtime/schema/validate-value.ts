/**
 * The one validator: compiles a description of the checks (a schema of the common subset, or a
 * `ValueCheck` that refines one) into a tree of closures, once per description, and runs it per
 * value. Hand-written tools, `harness-tool check` and the generated code all validate through it:
 * generated schema modules call `validatorFor` at load over the schema constants they export (or,
 * where the proto says more than the subset can, over a `ValueCheck` literal).
 */
import type { JsonSchema } from "./json-schema.js";
import type { ValueValidator, ValueViolation } from "./value-violation.js";

/**
 * What a validator checks: a schema of the subset (descriptions are ignored), refined by what a
 * proto states beyond it: `integer` on a number (an integral proto type refuses a fraction) and
 * `map` nodes (string keys to `values`; config only, the tool subset has no maps).
 */
export type ValueCheck =
  | { readonly type: "string"; readonly enum?: readonly string[] }
  | { readonly type: "number"; readonly integer?: boolean }
  | { readonly type: "boolean" }
  | { readonly type: "array"; readonly items: ValueCheck }
  | {
      readonly type: "object";
      readonly properties: { readonly [name: string]: ValueCheck };
      readonly required?: readonly string[];
    }
  | { readonly type: "map"; readonly values: ValueCheck };

/**
 * One compiled check: appends the violations of `value` to `out`. The value sits at `base`, or
 * under it at `key` when a key is given: paths are only joined where a violation or a nested value
 * needs them, which keeps a conforming value's check free of string building.
 */
type Check = (value: unknown, base: string, key: string | number | undefined, out: ValueViolation[]) => void;

/** The JSON Pointer of the value at `key` under `base` (the value at `base` itself without one). */
function at(base: string, key: string | number | undefined): string {
  return key === undefined ? base : `${base}/${key}`;
}

/** One JSON Pointer segment for a property name (`~` and `/` escaped). */
function escapePointer(segment: string): string {
  // Hot path: almost no property name holds "~" or "/", so skip the regexes then.
  if (!segment.includes("~") && !segment.includes("/")) return segment;
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The JSON type of `value` as the violation messages name it ("a string", "null", "an array", ...). */
function typeOfJson(value: unknown): string {
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

function isRecord(value: unknown): value is { readonly [name: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringCheck(values: readonly string[] | undefined): Check {
  if (values === undefined) {
    return (value, base, key, out) => {
      if (typeof value !== "string")
        out.push({ path: at(base, key), message: `must be a string, not ${typeOfJson(value)}` });
    };
  }
  const allowed = new Set(values);
  const oneOf = `must be one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
  return (value, base, key, out) => {
    if (typeof value !== "string")
      out.push({ path: at(base, key), message: `must be a string, not ${typeOfJson(value)}` });
    else if (!allowed.has(value)) out.push({ path: at(base, key), message: oneOf });
  };
}

function numberCheck(integer: boolean): Check {
  return (value, base, key, out) => {
    if (typeof value !== "number" || !Number.isFinite(value))
      out.push({ path: at(base, key), message: `must be a number, not ${typeOfJson(value)}` });
    else if (integer && !Number.isInteger(value))
      out.push({ path: at(base, key), message: `must be an integer, not ${value}` });
  };
}

function objectCheck(node: Extract<ValueCheck, { type: "object" }>): Check {
  // Own properties only: a name such as "constructor" is unknown unless declared.
  const fields = new Map<string, { readonly check: Check; readonly segment: string }>();
  for (const [name, child] of Object.entries(node.properties))
    fields.set(name, { check: compile(child), segment: escapePointer(name) });
  const required = (node.required ?? []).map((name) => ({ name, segment: escapePointer(name) }));
  return (value, base, key, out) => {
    const path = at(base, key);
    if (!isRecord(value)) {
      out.push({ path, message: `must be an object, not ${typeOfJson(value)}` });
      return;
    }
    for (const r of required)
      if (value[r.name] === undefined) out.push({ path: `${path}/${r.segment}`, message: "is required" });
    for (const name of Object.keys(value)) {
      const field = fields.get(name);
      // Closed objects: the model sometimes invents fields; naming them helps it correct itself.
      if (field === undefined) out.push({ path: `${path}/${escapePointer(name)}`, message: "is not a known property" });
      else {
        const item = value[name];
        if (item !== undefined) field.check(item, path, field.segment, out);
      }
    }
  };
}

function compile(node: ValueCheck): Check {
  switch (node.type) {
    case "string":
      return stringCheck(node.enum);
    case "number":
      return numberCheck(node.integer === true);
    case "boolean":
      return (value, base, key, out) => {
        if (typeof value !== "boolean")
          out.push({ path: at(base, key), message: `must be a boolean, not ${typeOfJson(value)}` });
      };
    case "array": {
      const items = compile(node.items);
      return (value, base, key, out) => {
        if (!Array.isArray(value))
          out.push({ path: at(base, key), message: `must be an array, not ${typeOfJson(value)}` });
        else {
          const path = at(base, key);
          for (let i = 0; i < value.length; i++) items(value[i], path, i, out);
        }
      };
    }
    case "object":
      return objectCheck(node);
    case "map": {
      const values = compile(node.values);
      return (value, base, key, out) => {
        const path = at(base, key);
        if (!isRecord(value)) out.push({ path, message: `must be an object, not ${typeOfJson(value)}` });
        else for (const name of Object.keys(value)) values(value[name], path, escapePointer(name), out);
      };
    }
  }
}

function validatorOf(check: JsonSchema | ValueCheck): (value: unknown) => ValueViolation[] {
  const root = compile(check);
  return (value) => {
    const out: ValueViolation[] = [];
    root(value, "", undefined, out);
    return out;
  };
}

/**
 * A validator for `check` (a schema of the subset, or a refined `ValueCheck`), compiled once here:
 * every violation of a value, in the order the value's properties come, each with its JSON Pointer path.
 */
export function validatorFor(check: JsonSchema | ValueCheck): ValueValidator {
  return validatorOf(check);
}

const compiled = new WeakMap<JsonSchema | ValueCheck, (value: unknown) => ValueViolation[]>();

/** Every violation of `schema` by `value`; empty when the value conforms (compiled once per schema object). */
export function validateValue(schema: JsonSchema | ValueCheck, value: unknown): ValueViolation[] {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    validate = validatorOf(schema);
    compiled.set(schema, validate);
  }
  return validate(value);
}
