/**
 * Value shapes as JSON Schema: the subset documents a tool declares (every message inlined, since
 * the subset has no $ref), the check descriptions the runtime's validator compiles where a proto
 * says more than the subset, and the json-schema-to-typescript input of one named type (nested
 * messages as references to their own named types, through its `tsType` keyword).
 */
import type { JsonSchema, JsonSchemaObject, ValueCheck } from "harness-tool/schema";
import {
  propertyDescription,
  resolveShape,
  type NamedShape,
  type ObjectShape,
  type PropertyShape,
  type ValueShape,
} from "./value-shape.js";

/** The shape as a subset JSON Schema, with `description` replacing the shape's own when given. */
export function toJsonSchema(shape: ValueShape, description?: string): JsonSchema {
  const target = resolveShape(shape);
  const text = description ?? target.description;
  const withDescription = text !== undefined && text !== "" ? { description: text } : {};
  switch (target.kind) {
    case "string":
      return { type: "string", ...withDescription, ...(target.enum ? { enum: [...target.enum] } : {}) };
    case "number":
      return { type: "number", ...withDescription };
    case "boolean":
      return { type: "boolean", ...withDescription };
    case "array":
      return { type: "array", ...withDescription, items: toJsonSchema(target.items) };
    case "object":
      return objectSchema(target, withDescription);
    case "map":
      // The model rejects maps outside config before any schema is built.
      throw new Error("a map has no subset JSON Schema");
  }
}

function objectSchema(shape: ObjectShape, withDescription: { description?: string }): JsonSchemaObject {
  const properties: { [name: string]: JsonSchema } = {};
  const required: string[] = [];
  for (const property of shape.properties) {
    properties[property.name] = toJsonSchema(property.shape, property.description);
    if (property.required) required.push(property.name);
  }
  return { type: "object", ...withDescription, properties, ...(required.length > 0 ? { required } : {}) };
}

/** A tool's input or output schema; the model guarantees the shape is an object. */
export function toToolSchema(shape: ValueShape): JsonSchemaObject {
  const schema = toJsonSchema(shape);
  if (schema.type !== "object") throw new Error("a tool schema must be an object");
  return schema;
}

/** The check description of `shape`: its structure without descriptions, integers and maps kept. */
export function valueCheckOf(shape: ValueShape): ValueCheck {
  const target = resolveShape(shape);
  switch (target.kind) {
    case "string":
      return target.enum ? { type: "string", enum: [...target.enum] } : { type: "string" };
    case "number":
      return target.integer ? { type: "number", integer: true } : { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "array":
      return { type: "array", items: valueCheckOf(target.items) };
    case "map":
      return { type: "map", values: valueCheckOf(target.values) };
    case "object": {
      const properties: { [name: string]: ValueCheck } = {};
      for (const p of target.properties) properties[p.name] = valueCheckOf(p.shape);
      const required = target.properties.filter((p) => p.required).map((p) => p.name);
      return { type: "object", properties, ...(required.length > 0 ? { required } : {}) };
    }
  }
}

/** True when the subset's JSON Schema of `shape` checks all there is to check (no integer, no map). */
export function schemaChecksAll(shape: ValueShape): boolean {
  const target = resolveShape(shape);
  switch (target.kind) {
    case "number":
      return target.integer !== true;
    case "map":
      return false;
    case "array":
      return schemaChecksAll(target.items);
    case "object":
      return target.properties.every((p) => schemaChecksAll(p.shape));
    default:
      return true;
  }
}

/** A JSON Schema document for json-schema-to-typescript (it reads keywords the subset lacks). */
export type TypeScriptSchema = { readonly [keyword: string]: unknown };

/** How `toTypeScriptSchema` names references and describes members. */
export interface TypeScriptSchemaOptions {
  /** The type a nested named shape refers to (default its own type name). */
  readonly nameOf?: (named: NamedShape) => string;
  /** A member's description from the one the shape gives it (`own`; default `own`). */
  readonly memberDoc?: (property: PropertyShape, own: string | undefined) => string | undefined;
}

/**
 * The json-schema-to-typescript input for the target of one named type: nested named shapes are
 * `tsType` references (by `nameOf`), maps `additionalProperties`, everything else as in the subset.
 */
export function toTypeScriptSchema(
  shape: ValueShape,
  description?: string,
  options: TypeScriptSchemaOptions = {},
): TypeScriptSchema {
  return typeScriptSchema(shape, description, true, {
    nameOf: options.nameOf ?? ((named) => named.typeName),
    memberDoc: options.memberDoc ?? ((_, own) => own),
  });
}

function typeScriptSchema(
  shape: ValueShape,
  description: string | undefined,
  root: boolean,
  options: Required<TypeScriptSchemaOptions>,
): TypeScriptSchema {
  if (shape.kind === "named" && !root) {
    return { tsType: options.nameOf(shape), ...describe(description) };
  }
  const target = resolveShape(shape);
  const text = description ?? target.description;
  switch (target.kind) {
    case "string":
      return { type: "string", ...describe(text), ...(target.enum ? { enum: [...target.enum] } : {}) };
    case "number":
    case "boolean":
      return { type: target.kind, ...describe(text) };
    case "array":
      return { type: "array", ...describe(text), items: typeScriptSchema(target.items, undefined, false, options) };
    case "map":
      return {
        type: "object",
        ...describe(text),
        additionalProperties: typeScriptSchema(target.values, undefined, false, options),
      };
    case "object": {
      const properties: { [name: string]: TypeScriptSchema } = {};
      const required: string[] = [];
      for (const property of target.properties) {
        // A named property's type carries its message's comment; the property keeps only the field's.
        const own = property.shape.kind === "named" ? property.description : propertyDescription(property);
        properties[property.name] = typeScriptSchema(property.shape, options.memberDoc(property, own), false, options);
        if (property.required) required.push(property.name);
      }
      return { type: "object", ...describe(text), properties, required };
    }
  }
}

function describe(text: string | undefined): { description?: string } {
  return text !== undefined && text !== "" ? { description: text } : {};
}
