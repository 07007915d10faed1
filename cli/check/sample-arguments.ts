/**
 * Arguments for conformance calls, made from a tool's input schema: one valid value, and invalid
 * variants that a conforming provider must refuse with `invalid_arguments`.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { JsonSchema, JsonSchemaObject } from "harness-tool";

/** The smallest value that conforms to `schema`: every required field, first enum values, empty arrays. */
export function sampleValue(schema: JsonSchema): JsonValue {
  switch (schema.type) {
    case "string":
      return schema.enum?.[0] ?? "example";
    case "number":
      return 1;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object": {
      const out: JsonObject = {};
      for (const name of schema.required ?? []) {
        const child = schema.properties[name];
        if (child) out[name] = sampleValue(child);
      }
      return out;
    }
  }
}

/** A value of the wrong JSON type for `schema`. */
function wrongTypeFor(schema: JsonSchema): JsonValue {
  return schema.type === "string" ? 12345 : "not-a-" + schema.type;
}

/** One invalid argument object, and why it is invalid. */
export interface InvalidArguments {
  readonly why: string;
  readonly arguments: JsonObject;
}

/**
 * Invalid variants of the sample arguments: a missing required field, a wrong type, a value outside
 * an enum, and an unknown property. Each breaks exactly one rule of the input schema.
 */
export function invalidArgumentVariants(schema: JsonSchemaObject): InvalidArguments[] {
  const valid = sampleValue(schema) as JsonObject;
  const variants: InvalidArguments[] = [];
  const firstRequired = schema.required?.[0];
  if (firstRequired !== undefined) {
    const { [firstRequired]: _dropped, ...rest } = valid;
    variants.push({ why: `required field "${firstRequired}" left out`, arguments: rest });
  }
  const typed = Object.entries(schema.properties)[0];
  if (typed) {
    const [name, child] = typed;
    variants.push({ why: `field "${name}" of the wrong type`, arguments: { ...valid, [name]: wrongTypeFor(child) } });
  }
  const enumField = Object.entries(schema.properties).find(([, child]) => child.type === "string" && child.enum);
  if (enumField) {
    variants.push({
      why: `field "${enumField[0]}" outside its enum`,
      arguments: { ...valid, [enumField[0]]: "not-one-of-the-values" },
    });
  }
  let unknown = "unexpected_field";
  while (Object.hasOwn(schema.properties, unknown)) unknown += "_";
  variants.push({ why: `unknown field "${unknown}"`, arguments: { ...valid, [unknown]: true } });
  return variants;
}
