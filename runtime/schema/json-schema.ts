/**
 * The common JSON-Schema subset shared by tools and model providers (the kernel's
 * `pluggableharness.schema.v1.Schema`, proto/pluggableharness/schema/v1/schema.proto): object,
 * string, number, boolean and array nodes; `description`, `properties`, `required`, `items`, and
 * `enum` on string nodes (the wire message calls it `enum_values`). Nothing else: no integer, no
 * null, no oneOf/anyOf/allOf, no $ref, no pattern, no format, no additionalProperties, no defaults.
 *
 * These types describe a schema document as harness-tool writes and reads it (standard JSON Schema
 * keywords), so the same value feeds json-schema-to-typescript, the validators and the wire form.
 */

/** An object node. Every name in `required` is a key of `properties`. */
export interface JsonSchemaObject {
  readonly type: "object";
  readonly description?: string;
  readonly properties: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
}

/** A string node, optionally limited to `enum`. */
export interface JsonSchemaString {
  readonly type: "string";
  readonly description?: string;
  readonly enum?: readonly string[];
}

/** A number node: every numeric value, integral or not (the subset has no integer type). */
export interface JsonSchemaNumber {
  readonly type: "number";
  readonly description?: string;
}

/** A boolean node. */
export interface JsonSchemaBoolean {
  readonly type: "boolean";
  readonly description?: string;
}

/** An array node; every element conforms to `items`. */
export interface JsonSchemaArray {
  readonly type: "array";
  readonly description?: string;
  readonly items: JsonSchema;
}

/** Any node of the subset. */
export type JsonSchema = JsonSchemaObject | JsonSchemaString | JsonSchemaNumber | JsonSchemaBoolean | JsonSchemaArray;

/** The node types of the subset, in wire order (SCHEMA_TYPE_OBJECT = 1 ... SCHEMA_TYPE_ARRAY = 5). */
export const jsonSchemaTypes = ["object", "string", "number", "boolean", "array"] as const;

/** The keywords the subset allows, per node type. */
export const jsonSchemaKeywords: { readonly [T in JsonSchema["type"]]: readonly string[] } = {
  object: ["type", "description", "properties", "required"],
  string: ["type", "description", "enum"],
  number: ["type", "description"],
  boolean: ["type", "description"],
  array: ["type", "description", "items"],
};
