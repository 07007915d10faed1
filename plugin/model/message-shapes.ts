/**
 * Proto messages as value shapes (and through them, JSON Schema): the documented mapping of
 * docs/plugin.md. What the common subset cannot express (maps, oneofs, recursion, well-known types
 * without a mapping) is a diagnostic on the field, unless the message carries an inline
 * `(harnesstool.v1.schema).json_schema`, which replaces the derived shape and is checked against
 * the subset with the runtime's own check.
 */
import { getOption, hasOption, ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { Edition, FieldDescriptorProto_Label } from "@bufbuild/protobuf/wkt";
import {
  field as fieldOption,
  schema as schemaOption,
  SchemaOptionsSchema,
} from "harness-tool/generated/harnesstool/v1/annotations_pb.js";
import { checkSchemaSubset, type JsonSchema } from "harness-tool/schema";
import type { DiagnosticSink } from "./diagnostics.js";
import { enumValues } from "./enum-values.js";
import { fieldNumber, sourcePathParts, type SourceIndex } from "./source-locations.js";
import type { NamedShape, ObjectShape, PropertyShape, ValueShape } from "./value-shape.js";
import {
  bytesDescription,
  int32Description,
  int64Description,
  refusedWellKnownType,
  wellKnownMapping,
} from "./well-known-types.js";

/**
 * `tool`: the common subset (a tool's input or output). `config`: a provider's agent.hcl block,
 * which may also hold `map<string, string>`, and whose lists hold strings or numbers only.
 */
export type ShapeMode = "tool" | "config";

/** What resolving needs from its surroundings. */
export interface ShapeContext {
  readonly source: SourceIndex;
  readonly diagnostics: DiagnosticSink;
  /** The TypeScript type name of a message in the file being generated (stable per message). */
  readonly typeNameOf: (message: DescMessage) => string;
}

// Where `(harnesstool.v1.schema).json_schema` is written, below a message declaration.
const jsonSchemaPath = [
  sourcePathParts.MESSAGE_OPTIONS,
  schemaOption.number,
  fieldNumber(SchemaOptionsSchema, "jsonSchema"),
];

const int64Types = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);
const int32Types = new Set([
  ScalarType.INT32,
  ScalarType.UINT32,
  ScalarType.SINT32,
  ScalarType.FIXED32,
  ScalarType.SFIXED32,
]);

/** A field being resolved: where it is, how problems are worded, and what its description gathers. */
interface FieldSite {
  readonly field: DescField;
  readonly mode: ShapeMode;
  readonly scope: string;
  readonly at: ReturnType<SourceIndex["position"]>;
  /** `field pkg.Message.name`, for diagnostics. */
  readonly where: string;
  /** The alternative a tool message always has (an inline json_schema), for diagnostics' fixes. */
  readonly unless: string;
  /** Notes appended to the description (64-bit, bytes, well-known types, enum values). */
  readonly notes: string[];
  /** A wrapper type: optional unless `required = true`. */
  optionalByDefault: boolean;
}

/** Resolves messages to shapes for one generated file, each message once per mode. */
export class MessageShapes {
  private readonly named = new Map<DescMessage, NamedShape | null>();
  private readonly inline = new Map<DescMessage, ObjectShape | null>();
  private readonly enums = new Map<
    DescEnum,
    { values: readonly string[]; comments: readonly (readonly [string, string])[] } | null
  >();
  private readonly resolving = new Set<DescMessage>();

  constructor(private readonly ctx: ShapeContext) {}

  /**
   * A tool message as a named shape, or undefined when it cannot be expressed (the reasons are
   * recorded under `scope`, once per message).
   */
  toolMessage(message: DescMessage, scope: string): NamedShape | undefined {
    const cached = this.named.get(message);
    if (cached !== undefined) return cached ?? undefined;
    this.resolving.add(message);
    const override = this.overrideShape(message, scope);
    const target = override === undefined ? this.objectShape(message, "tool", scope) : (override ?? undefined);
    this.resolving.delete(message);
    const shape: NamedShape | null =
      target === undefined
        ? null
        : { kind: "named", typeName: this.ctx.typeNameOf(message), messageName: message.typeName, target };
    this.named.set(message, shape);
    return shape ?? undefined;
  }

  /** A config message (or a message nested in one) as an inline object shape. */
  configMessage(message: DescMessage, scope: string): ObjectShape | undefined {
    const cached = this.inline.get(message);
    if (cached !== undefined) return cached ?? undefined;
    if (hasOption(message, schemaOption) && getOption(message, schemaOption).jsonSchema !== undefined) {
      this.ctx.diagnostics.error(
        this.ctx.source.position(message, jsonSchemaPath),
        scope,
        `config message ${message.typeName} sets json_schema, which only applies to tool messages`,
        "describe the configuration with fields",
      );
      this.inline.set(message, null);
      return undefined;
    }
    this.resolving.add(message);
    const shape = this.objectShape(message, "config", scope);
    this.resolving.delete(message);
    this.inline.set(message, shape ?? null);
    return shape;
  }

  /** The inline json_schema's shape; undefined without one, null when it is broken (reported). */
  private overrideShape(message: DescMessage, scope: string): Exclude<ValueShape, NamedShape> | null | undefined {
    if (!hasOption(message, schemaOption)) return undefined;
    const text = getOption(message, schemaOption).jsonSchema;
    if (text === undefined) return undefined;
    const at = this.ctx.source.position(message, jsonSchemaPath);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      this.ctx.diagnostics.error(
        at,
        scope,
        `json_schema of ${message.typeName} is not valid JSON: ${(error as Error).message}`,
        "write the schema as one JSON document",
      );
      return null;
    }
    if (typeof document === "object" && document !== null && !Array.isArray(document)) {
      const { $schema: _ignored, ...rest } = document as Record<string, unknown>;
      void _ignored;
      document = rest;
    }
    const problems = checkSchemaSubset(document);
    for (const problem of problems) {
      this.ctx.diagnostics.error(
        at,
        scope,
        `json_schema of ${message.typeName} at ${problem.path || "/"}: ${problem.message}`,
        "keep json_schema inside the common subset: object, string, number, boolean and array nodes with description, properties, required, items and enum",
      );
    }
    if (problems.length > 0) return null;
    return shapeFromJsonSchema(document as JsonSchema);
  }

  private objectShape(message: DescMessage, mode: ShapeMode, scope: string): ObjectShape | undefined {
    const properties: PropertyShape[] = [];
    let failed = false;
    for (const field of message.fields) {
      const property = this.fieldProperty(field, mode, scope);
      if (property === undefined) failed = true;
      else properties.push(property);
    }
    if (failed) return undefined;
    const description = this.ctx.source.leadingComment(message);
    return { kind: "object", ...(description !== "" ? { description } : {}), properties };
  }

  private fieldProperty(field: DescField, mode: ShapeMode, scope: string): PropertyShape | undefined {
    const { source, diagnostics } = this.ctx;
    const options = hasOption(field, fieldOption) ? getOption(field, fieldOption) : undefined;
    const own = options?.description ?? source.leadingComment(field);
    const site: FieldSite = {
      field,
      mode,
      scope,
      at: source.position(field),
      where: `field ${field.parent.typeName}.${field.name}`,
      unless: mode === "tool" ? `, or set (harnesstool.v1.schema).json_schema on ${field.parent.name}` : "",
      notes: [],
      optionalByDefault: false,
    };
    const { at, where, unless, notes } = site;

    if (field.oneof !== undefined) {
      diagnostics.error(
        at,
        scope,
        `${where} is in oneof ${field.oneof.name}, and the subset has no unions`,
        `use separate optional fields${unless}`,
      );
      return undefined;
    }
    if (options?.sensitive && mode === "tool") {
      diagnostics.warning(
        at,
        scope,
        `${where} is marked sensitive, which only applies to config fields`,
        "remove sensitive, or move the field to the config message",
      );
    }

    let shape: ValueShape | undefined;
    let description: string | undefined;
    if (field.fieldKind === "map") {
      shape = this.mapShape(site);
      if (shape === undefined) return undefined;
      description = own;
    } else if (field.fieldKind === "list") {
      const items = this.elementShape(site);
      if (items === undefined) return undefined;
      if (mode === "config" && items.kind !== "string" && items.kind !== "number") {
        diagnostics.error(
          at,
          scope,
          `${where} is a list of ${items.kind === "boolean" ? "booleans" : "messages"}, and config lists hold strings or numbers`,
          "use repeated string or a repeated number type",
        );
        return undefined;
      }
      shape = { kind: "array", ...describe(withNotes(own, notes)), items };
    } else {
      const value = this.elementShape(site);
      if (value === undefined) return undefined;
      if (value.kind === "named" || value.kind === "object") {
        shape = value;
        description = withNotes(own, notes);
      } else {
        shape = { ...value, ...describe(withNotes(own, notes)) } as ValueShape;
      }
    }

    let required = !optionalByDeclaration(field) && !site.optionalByDefault;
    if (options?.required !== undefined) required = options.required;
    return {
      name: field.name,
      shape,
      required,
      ...(description !== undefined && description !== "" ? { description } : {}),
      sensitive: options?.sensitive === true,
      protoName: `${field.parent.typeName}.${field.name}`,
    };
  }

  /** A map field: only config takes one, and only map<string, string>. */
  private mapShape({ field, mode, scope, at, where, unless }: FieldSite): ValueShape | undefined {
    const { diagnostics } = this.ctx;
    if (mode === "tool") {
      diagnostics.error(
        at,
        scope,
        `${where} is a map, and the subset has no maps (objects are closed)`,
        `use a repeated message with key and value fields${unless}`,
      );
      return undefined;
    }
    if (field.fieldKind !== "map") return undefined;
    const valueIsString = field.mapKind === "scalar" && field.scalar === ScalarType.STRING;
    if (field.mapKey !== ScalarType.STRING || !valueIsString) {
      diagnostics.error(
        at,
        scope,
        `${where} is a map, and config maps must be map<string, string>`,
        "use map<string, string> or a nested message",
      );
      return undefined;
    }
    return { kind: "map", values: { kind: "string" } };
  }

  /** The shape of a singular field's value or a list's element; notes for the description go to `site.notes`. */
  private elementShape(site: FieldSite): ValueShape | undefined {
    const { field, notes } = site;
    switch (field.fieldKind === "list" ? field.listKind : field.fieldKind) {
      case "scalar": {
        const scalar = field.scalar as ScalarType;
        if (int64Types.has(scalar)) notes.push(int64Description);
        if (int32Types.has(scalar)) notes.push(int32Description);
        if (scalar === ScalarType.BYTES) notes.push(bytesDescription);
        if (scalar === ScalarType.BOOL) return { kind: "boolean" };
        if (scalar === ScalarType.STRING || scalar === ScalarType.BYTES) return { kind: "string" };
        return int32Types.has(scalar) || int64Types.has(scalar)
          ? { kind: "number", integer: true }
          : { kind: "number" };
      }
      case "enum": {
        const values = this.enumShape(field.enum as DescEnum, site.scope, site.at);
        if (values === undefined) return undefined;
        if (values.comments.length > 0) {
          notes.push(
            `values: ${values.comments.map(([v, c]) => `"${v}" (${c.replace(/\s+/g, " ").replace(/\.$/, "")})`).join(", ")}`,
          );
        }
        return { kind: "string", enum: values.values };
      }
      case "message":
        return this.messageElement(site, field.message as DescMessage);
      default:
        return undefined;
    }
  }

  /** A message-typed value: a mapped well-known type, or the message's own shape. */
  private messageElement(site: FieldSite, message: DescMessage): ValueShape | undefined {
    const { diagnostics } = this.ctx;
    const { mode, scope, at, where, unless } = site;
    const mapping = wellKnownMapping(message.typeName);
    if (mapping) {
      if (mapping.shape.description) site.notes.push(mapping.shape.description);
      site.optionalByDefault = mapping.optionalByDefault;
      return mapping.shape.kind === "number" && mapping.shape.integer
        ? { kind: "number", integer: true }
        : ({ kind: mapping.shape.kind } as ValueShape);
    }
    const refused = refusedWellKnownType(message.typeName);
    if (refused !== undefined) {
      diagnostics.error(at, scope, `${where}: ${refused}`, `use a message with named fields${unless}`);
      return undefined;
    }
    if (this.resolving.has(message)) {
      diagnostics.error(
        at,
        scope,
        `${where} refers back to ${message.typeName}: recursive messages cannot be expressed (the subset has no $ref)`,
        `bound the nesting with a separate message${mode === "tool" ? `, or set (harnesstool.v1.schema).json_schema on ${message.name}` : ""}`,
      );
      return undefined;
    }
    return mode === "config" ? this.configMessage(message, scope) : this.toolMessage(message, scope);
  }

  private enumShape(desc: DescEnum, scope: string, at: ReturnType<SourceIndex["position"]>) {
    const cached = this.enums.get(desc);
    if (cached !== undefined) return cached ?? undefined;
    const result = enumValues(desc, (index) => this.ctx.source.enumValueComment(desc, index));
    if (!result.ok) {
      this.ctx.diagnostics.error(at, scope, result.message, result.fix);
      this.enums.set(desc, null);
      return undefined;
    }
    const values = { values: result.values, comments: result.comments };
    this.enums.set(desc, values);
    return values;
  }
}

/**
 * Optional without the `required` option: proto3 `optional`, a proto2 `optional` label (editions
 * have no keyword for it), and every list and map, which protobuf leaves out when empty: a model
 * may leave one out too, and its absence means the empty list (or map).
 */
function optionalByDeclaration(field: DescField): boolean {
  if (field.fieldKind === "list" || field.fieldKind === "map") return true;
  if (field.proto.proto3Optional) return true;
  return (
    field.parent.file.edition === Edition.EDITION_PROTO2 && field.proto.label === FieldDescriptorProto_Label.OPTIONAL
  );
}

function withNotes(own: string, notes: readonly string[]): string {
  const text = notes.map((n) => `${n.charAt(0).toUpperCase()}${n.slice(1)}.`).join(" ");
  if (own === "") return text;
  return text === "" ? own : `${own}\n\n${text}`;
}

function describe(text: string): { description?: string } {
  return text !== "" ? { description: text } : {};
}

/** A subset JSON Schema (already checked) as a shape; nested objects stay inline. */
export function shapeFromJsonSchema(schema: JsonSchema): Exclude<ValueShape, NamedShape> {
  const d = schema.description !== undefined ? { description: schema.description } : {};
  switch (schema.type) {
    case "string":
      return { kind: "string", ...d, ...(schema.enum ? { enum: [...schema.enum] } : {}) };
    case "number":
    case "boolean":
      return { kind: schema.type, ...d };
    case "array":
      return { kind: "array", ...d, items: shapeFromJsonSchema(schema.items) };
    case "object": {
      const required = new Set(schema.required ?? []);
      return {
        kind: "object",
        ...d,
        properties: Object.entries(schema.properties).map(([name, child]) => ({
          name,
          shape: shapeFromJsonSchema(child),
          required: required.has(name),
          sensitive: false,
        })),
      };
    }
  }
}
