/**
 * Checks that an arbitrary value (an inline `json_schema` option, a schema decoded from a
 * provider's GetSchema) is a schema of the common subset, and names everything outside it.
 */
import { jsonSchemaKeywords, jsonSchemaTypes, type JsonSchema, type JsonSchemaObject } from "./json-schema.js";

/** One way a schema document falls outside the subset. */
export interface SchemaProblem {
  /** JSON Pointer into the schema document. */
  readonly path: string;
  readonly message: string;
}

/** Keywords people reach for that the subset leaves out, with what to do instead. */
const unsupportedAdvice: { readonly [keyword: string]: string } = {
  oneOf: "the subset has no unions: use one object with optional fields",
  anyOf: "the subset has no unions: use one object with optional fields",
  allOf: "the subset has no composition: write the merged object out",
  $ref: "the subset has no references: inline the schema",
  pattern: "the subset has no pattern: validate in the handler and say the format in the description",
  format: "the subset has no format: say the format in the description",
  additionalProperties: "objects are always closed: list every property",
  default: "the subset has no defaults: say the default in the description",
  minimum: "the subset has no numeric bounds: say them in the description",
  maximum: "the subset has no numeric bounds: say them in the description",
  enum_values: "write `enum` in a JSON Schema document (it becomes enum_values on the wire)",
};

function walk(node: unknown, path: string, out: SchemaProblem[]): void {
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    out.push({ path, message: "must be a schema object" });
    return;
  }
  const record = node as Record<string, unknown>;
  const type = record["type"];
  if (typeof type !== "string" || !(jsonSchemaTypes as readonly string[]).includes(type)) {
    const hint =
      type === "integer"
        ? ' (the subset has no integer: use "number")'
        : type === "null"
          ? " (the subset has no null: make the field optional)"
          : "";
    out.push({
      path: `${path}/type`,
      message: `type must be one of ${jsonSchemaTypes.join(", ")}, not ${JSON.stringify(type)}${hint}`,
    });
    return;
  }
  const allowed = jsonSchemaKeywords[type as JsonSchema["type"]];
  for (const key of Object.keys(record)) {
    if (key === "$schema" && path === "") continue;
    if (!allowed.includes(key)) {
      const advice = unsupportedAdvice[key];
      out.push({
        path: `${path}/${key}`,
        message: `\`${key}\` is not allowed on a ${type} node${advice ? ` (${advice})` : ""}`,
      });
    }
  }
  if ("description" in record && typeof record["description"] !== "string") {
    out.push({ path: `${path}/description`, message: "description must be a string" });
  }
  if (type === "string" && "enum" in record) {
    const values = record["enum"];
    if (!Array.isArray(values) || values.length === 0 || !values.every((v) => typeof v === "string")) {
      out.push({ path: `${path}/enum`, message: "enum must be a non-empty array of strings" });
    } else if (new Set(values).size !== values.length) {
      out.push({ path: `${path}/enum`, message: "enum values must be unique" });
    }
  }
  if (type === "array") {
    if (!("items" in record)) out.push({ path: `${path}/items`, message: "an array node needs items" });
    else walk(record["items"], `${path}/items`, out);
  }
  if (type === "object") {
    const properties = record["properties"];
    if (typeof properties !== "object" || properties === null || Array.isArray(properties)) {
      out.push({ path: `${path}/properties`, message: "an object node needs properties (an object, possibly empty)" });
      return;
    }
    for (const [name, child] of Object.entries(properties))
      walk(child, `${path}/properties/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, out);
    if ("required" in record) {
      const required = record["required"];
      if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) {
        out.push({ path: `${path}/required`, message: "required must be an array of property names" });
      } else {
        for (const name of required) {
          if (!Object.hasOwn(properties, name))
            out.push({ path: `${path}/required`, message: `required names "${name}", which is not in properties` });
        }
        if (new Set(required).size !== required.length)
          out.push({ path: `${path}/required`, message: "required names a property twice" });
      }
    }
  }
}

/** Every way `value` falls outside the subset; empty when it is a valid subset schema. */
export function checkSchemaSubset(value: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  walk(value, "", out);
  return out;
}

/** Every problem with `value` as a tool's input or output schema: in the subset, and an object at the root. */
export function checkToolSchemaDocument(value: unknown): SchemaProblem[] {
  const problems = checkSchemaSubset(value);
  if (problems.length === 0 && (value as JsonSchema).type !== "object") {
    problems.push({ path: "/type", message: "a tool's input and output schemas must be objects at the root" });
  }
  return problems;
}

/** Narrows a checked document. */
export function isToolSchemaDocument(value: unknown): value is JsonSchemaObject {
  return checkToolSchemaDocument(value).length === 0;
}
