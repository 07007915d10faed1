/**
 * Conversions between the plain declarations and the wire messages: JsonSchema <->
 * schema.v1.Schema, ToolDeclaration <-> tool.v1.ToolSchema. The runtime converts once at start-up
 * for GetSchema; `harness-tool check` converts a provider's GetSchema back to run the invariants.
 */
import { create } from "@bufbuild/protobuf";
import { durationFromMs, durationMs } from "@bufbuild/protobuf/wkt";
import { SchemaSchema, SchemaType, type Schema } from "../generated/pluggableharness/schema/v1/schema_pb.js";
import {
  ConcurrencySpecSchema,
  ToolSchemaSchema,
  type ToolSchema,
} from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { AttrType, type ConfigAttribute } from "../generated/pluggableharness/config/v1/config_pb.js";
import type { JsonSchema, JsonSchemaObject } from "./json-schema.js";
import { protocolNames } from "./protocol-names.js";
import type { ConfigAttributeRuleInput } from "./provider-rules.js";
import { riskClasses, toolKinds, toolSchemaFlagValues, type ToolDeclaration } from "./tool-declaration.js";

const typeToWire: { readonly [T in JsonSchema["type"]]: SchemaType } = {
  object: SchemaType.OBJECT,
  string: SchemaType.STRING,
  number: SchemaType.NUMBER,
  boolean: SchemaType.BOOLEAN,
  array: SchemaType.ARRAY,
};

/** A subset JSON Schema as the wire message schema.v1.Schema (`enum` becomes `enum_values`). */
export function jsonSchemaToWire(schema: JsonSchema): Schema {
  const wire = create(SchemaSchema, { type: typeToWire[schema.type], description: schema.description ?? "" });
  switch (schema.type) {
    case "object":
      for (const [name, child] of Object.entries(schema.properties)) wire.properties[name] = jsonSchemaToWire(child);
      wire.required = [...(schema.required ?? [])];
      break;
    case "array":
      wire.items = jsonSchemaToWire(schema.items);
      break;
    case "string":
      if (schema.enum) wire.enumValues = [...schema.enum];
      break;
    default:
      break;
  }
  return wire;
}

/**
 * A wire schema.v1.Schema back as a JSON Schema document. The result is not checked: a wire
 * schema may be outside the subset (an unspecified type, items on a string), and the document
 * keeps what it says so checkSchemaSubset can name it.
 */
export function jsonSchemaFromWire(wire: Schema): Record<string, unknown> {
  const names: { [t: number]: string } = {
    [SchemaType.OBJECT]: "object",
    [SchemaType.STRING]: "string",
    [SchemaType.NUMBER]: "number",
    [SchemaType.BOOLEAN]: "boolean",
    [SchemaType.ARRAY]: "array",
  };
  const doc: Record<string, unknown> = { type: names[wire.type] ?? `unspecified (${wire.type})` };
  if (wire.description !== "") doc["description"] = wire.description;
  const props = Object.entries(wire.properties);
  if (wire.type === SchemaType.OBJECT || props.length > 0) {
    doc["properties"] = Object.fromEntries(props.map(([k, v]) => [k, jsonSchemaFromWire(v)]));
  }
  if (wire.required.length > 0) doc["required"] = [...wire.required];
  if (wire.items) doc["items"] = jsonSchemaFromWire(wire.items);
  if (wire.enumValues.length > 0) doc["enum"] = [...wire.enumValues];
  return doc;
}

/** A declaration as the wire ToolSchema GetSchema returns. */
export function toolDeclarationToWire(tool: ToolDeclaration): ToolSchema {
  if (tool.kind === "unspecified" || tool.risk === "unspecified") {
    throw new TypeError(`tool ${tool.name}: kind and risk must be set before it goes on the wire`);
  }
  const ms = tool.defaultTimeoutMs;
  return create(ToolSchemaSchema, {
    name: tool.name,
    kind: toolKinds.value(tool.kind),
    risk: riskClasses.value(tool.risk),
    description: tool.description,
    inputSchema: jsonSchemaToWire(tool.inputSchema),
    outputSchema: jsonSchemaToWire(tool.outputSchema),
    ...toolSchemaFlagValues(tool),
    ...(tool.concurrency
      ? {
          concurrency: create(ConcurrencySpecSchema, {
            safe: tool.concurrency.safe,
            keyFields: [...(tool.concurrency.keyFields ?? [])],
          }),
        }
      : {}),
    // Whole milliseconds on the wire (durationFromMs needs one), rounded up so that a positive timeout stays positive.
    ...(ms !== undefined ? { defaultTimeout: durationFromMs(Math.ceil(ms)) } : {}),
  });
}

/**
 * A wire ToolSchema as a declaration, for checking another provider's GetSchema. The wire form
 * cannot say `processBacked` or `preview`, nor that idempotent was left out: those read false.
 * Schemas outside the subset are kept as decoded, for the invariants to report.
 */
export function toolDeclarationFromWire(wire: ToolSchema): ToolDeclaration {
  // A missing schema decodes to an empty document, which the subset check reports as having no type.
  const missing = {};
  const timeout = wire.defaultTimeout;
  return {
    name: wire.name,
    kind: toolKinds.name(wire.kind),
    risk: riskClasses.name(wire.risk),
    description: wire.description,
    inputSchema: (wire.inputSchema ? jsonSchemaFromWire(wire.inputSchema) : missing) as unknown as JsonSchemaObject,
    outputSchema: (wire.outputSchema ? jsonSchemaFromWire(wire.outputSchema) : missing) as unknown as JsonSchemaObject,
    ...toolSchemaFlagValues(wire),
    processBacked: false,
    ...(wire.concurrency
      ? { concurrency: { safe: wire.concurrency.safe, keyFields: [...wire.concurrency.keyFields] } }
      : {}),
    ...(timeout ? { defaultTimeoutMs: durationMs(timeout) } : {}),
    preview: false,
  };
}

const attrTypeNames = protocolNames(AttrType);

/** GetSchema's config attributes (config.v1.ConfigAttribute) as the provider rules read them. */
export function configAttributesFromWire(attributes: readonly ConfigAttribute[]): ConfigAttributeRuleInput[] {
  return attributes.map((a) => ({
    name: a.name,
    type: attrTypeNames.name(a.type),
    sensitive: a.sensitive,
    ...(a.defaultJson !== undefined ? { defaultJson: a.defaultJson } : {}),
    ...(a.objectAttributes.length > 0 ? { objectAttributes: configAttributesFromWire(a.objectAttributes) } : {}),
  }));
}
