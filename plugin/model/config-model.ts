/**
 * A provider's config message as agent.hcl attributes (config.v1.ConfigAttribute): the value
 * shape decides the attribute type; `(harnesstool.v1.field).sensitive` marks secrets.
 */
import type { ConfigAttributeDeclaration, ConfigAttributeTypeName } from "harness-tool";
import { propertyDescription, resolveShape, type ObjectShape, type ValueShape } from "./value-shape.js";

/** A provider's configuration. */
export interface ConfigModel {
  readonly messageName: string;
  readonly shape: ObjectShape;
  readonly attributes: readonly ConfigAttributeDeclaration[];
}

function attributeType(shape: ValueShape): ConfigAttributeTypeName {
  const target = resolveShape(shape);
  switch (target.kind) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "bool";
    case "map":
      return "map_string";
    case "object":
      return "object";
    case "array":
      // The model only lets lists of strings or numbers into a config.
      return resolveShape(target.items).kind === "number" ? "list_number" : "list_string";
  }
}

/** The attributes of a config object, in field order, nested objects with their own attributes. */
export function configAttributes(shape: ObjectShape): ConfigAttributeDeclaration[] {
  return shape.properties.map((property) => {
    const type = attributeType(property.shape);
    const target = resolveShape(property.shape);
    return {
      name: property.name,
      type,
      required: property.required,
      sensitive: property.sensitive,
      description: propertyDescription(property) ?? "",
      ...(type === "object" && target.kind === "object" ? { objectAttributes: configAttributes(target) } : {}),
    };
  });
}
