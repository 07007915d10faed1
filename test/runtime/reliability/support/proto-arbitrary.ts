/**
 * Random proto files for fuzzing protoc-gen-harness-tool: always valid protobuf (buf compiles
 * them), but inside or outside harness-tool's subset at random: every scalar type, enums (some
 * with only the zero value), nested, self-referencing and shared messages, maps, oneofs,
 * optional fields, well-known types, inline json_schema (JSON or not, in the subset or not),
 * field options, tool options with any kind/risk/concurrency/timeout/idempotent combination
 * (key fields real or not), streaming rpcs, rpcs without the tool option, provider options with
 * a config message that exists or not, proto2 as well as proto3, comments or none.
 */
import fc from "fast-check";

const scalarTypes = [
  "string",
  "bool",
  "double",
  "float",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "sfixed32",
  "bytes",
] as const;
const wellKnown = {
  "google.protobuf.Timestamp": "google/protobuf/timestamp.proto",
  "google.protobuf.Duration": "google/protobuf/duration.proto",
  "google.protobuf.Struct": "google/protobuf/struct.proto",
  "google.protobuf.Value": "google/protobuf/struct.proto",
  "google.protobuf.Any": "google/protobuf/any.proto",
  "google.protobuf.FieldMask": "google/protobuf/field_mask.proto",
  "google.protobuf.StringValue": "google/protobuf/wrappers.proto",
  "google.protobuf.Int64Value": "google/protobuf/wrappers.proto",
  "google.protobuf.Empty": "google/protobuf/empty.proto",
} as const;
type WellKnown = keyof typeof wellKnown;
const fieldNames = [
  "path",
  "text",
  "count",
  "items",
  "mode",
  "enabled",
  "nested",
  "tags",
  "when",
  "limit",
  "query",
  "root",
] as const;
const kinds = [
  "TOOL_KIND_DATA_SOURCE",
  "TOOL_KIND_RESOURCE",
  "TOOL_KIND_INTERACTIVE",
  "TOOL_KIND_UNSPECIFIED",
] as const;
const risks = [
  "RISK_CLASS_READ_ONLY",
  "RISK_CLASS_LOW",
  "RISK_CLASS_MODERATE",
  "RISK_CLASS_HIGH",
  "RISK_CLASS_CRITICAL",
  "RISK_CLASS_UNSPECIFIED",
] as const;
const hookPoints = ["HOOK_POINT_PRE_TOOL_CALL", "HOOK_POINT_POST_TOOL_CALL", "HOOK_POINT_UNSPECIFIED"] as const;

/** A field's type: a scalar, one of the file's enums or messages (by index), or a well-known type. */
type FieldType =
  | { scalar: (typeof scalarTypes)[number] }
  | { enumIndex: number }
  | { messageIndex: number }
  | { wellKnown: WellKnown };

interface FieldModel {
  readonly name: string;
  readonly type: FieldType;
  readonly label: "" | "repeated" | "optional" | "map" | "oneof";
  readonly mapValue: FieldType;
  readonly options: { required?: boolean; description?: string; sensitive?: boolean };
  readonly comment: boolean;
}

interface MessageModel {
  readonly fields: readonly FieldModel[];
  readonly jsonSchema: string | undefined;
  readonly comment: boolean;
}

interface RpcModel {
  readonly request: number;
  readonly response: number | "empty";
  readonly streaming: "" | "server" | "client";
  readonly comment: boolean;
  readonly tool:
    | undefined
    | {
        kind?: (typeof kinds)[number];
        risk?: (typeof risks)[number];
        name?: string;
        description?: string;
        streaming?: boolean;
        processBacked?: boolean;
        concurrency?: { safe: boolean; keyFields: readonly string[] };
        timeout?: { seconds: number; nanos: number };
        idempotent?: boolean;
        terminatesTurn?: boolean;
        preview?: boolean;
      };
}

/** One random proto file, before printing. */
export interface ProtoModel {
  readonly syntax: "proto3" | "proto2";
  readonly enums: readonly { values: number; comment: boolean }[];
  readonly messages: readonly MessageModel[];
  readonly service:
    | undefined
    | {
        rpcs: readonly RpcModel[];
        comment: boolean;
        provider: undefined | { config?: string; render?: boolean; hooks?: string[]; slash?: boolean };
      };
}

const jsonSchemaText = fc.oneof(
  fc.constant('{"type": "object", "properties": {"a": {"type": "string"}}}'),
  fc.constant('{"type": "object", "properties": {"n": {"type": "integer"}}}'),
  fc.constant('{"type": "string", "pattern": "^a"}'),
  fc.constant('{"type": "object", "oneOf": []}'),
  fc.constant("not json {"),
  fc.constant("[]"),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
);

function fieldType(enums: number, messages: number): fc.Arbitrary<FieldType> {
  const options: fc.Arbitrary<FieldType>[] = [
    fc.constantFrom(...scalarTypes).map((scalar) => ({ scalar })),
    fc.constantFrom(...(Object.keys(wellKnown) as WellKnown[])).map((w) => ({ wellKnown: w })),
    fc.nat(messages - 1).map((messageIndex) => ({ messageIndex })),
  ];
  if (enums > 0) options.push(fc.nat(enums - 1).map((enumIndex) => ({ enumIndex })));
  return fc.oneof({ arbitrary: options[0]!, weight: 4 }, ...options.slice(1));
}

function message(enums: number, messages: number): fc.Arbitrary<MessageModel> {
  const field = fc.record({
    type: fieldType(enums, messages),
    label: fc.constantFrom("", "", "", "repeated", "optional", "map", "oneof"),
    mapValue: fieldType(enums, messages),
    options: fc.record(
      {
        required: fc.boolean(),
        description: fc.constantFrom("A described field.", 'Quotes " and \\ backslash.'),
        sensitive: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    comment: fc.boolean(),
  });
  return fc.record({
    fields: fc
      .uniqueArray(fc.tuple(fc.constantFrom(...fieldNames), field), { maxLength: 5, selector: ([name]) => name })
      .map((pairs) => pairs.map(([name, f]) => ({ name, ...f }))),
    jsonSchema: fc.option(jsonSchemaText, { freq: 8, nil: undefined }),
    comment: fc.boolean(),
  });
}

function rpc(messages: number): fc.Arbitrary<RpcModel> {
  const tool = fc.record(
    {
      kind: fc.constantFrom(...kinds),
      risk: fc.constantFrom(...risks),
      name: fc.constantFrom("custom_name", "Bad Name", "", "echo"),
      description: fc.constantFrom("Does a thing.", ""),
      streaming: fc.boolean(),
      processBacked: fc.boolean(),
      concurrency: fc.record({
        safe: fc.boolean(),
        keyFields: fc.array(fc.constantFrom(...fieldNames, "nope"), { maxLength: 2 }),
      }),
      timeout: fc.record({ seconds: fc.integer({ min: -1, max: 120 }), nanos: fc.constantFrom(0, 500_000_000) }),
      idempotent: fc.boolean(),
      terminatesTurn: fc.boolean(),
      preview: fc.boolean(),
    },
    { requiredKeys: [] },
  );
  return fc.record({
    request: fc.nat(messages - 1),
    response: fc.oneof({ arbitrary: fc.nat(messages - 1), weight: 6 }, fc.constant("empty" as const)),
    streaming: fc.constantFrom("", "", "", "", "server", "client"),
    comment: fc.boolean(),
    tool: fc.option(tool, { freq: 8, nil: undefined }),
  });
}

/** Random proto file models. */
export const protoModel: fc.Arbitrary<ProtoModel> = fc
  .record({ enumCount: fc.nat(2), messageCount: fc.integer({ min: 1, max: 4 }) })
  .chain(({ enumCount, messageCount }) =>
    fc.record({
      syntax: fc.constantFrom("proto3", "proto3", "proto3", "proto2"),
      enums: fc.array(fc.record({ values: fc.integer({ min: 1, max: 3 }), comment: fc.boolean() }), {
        minLength: enumCount,
        maxLength: enumCount,
      }),
      messages: fc.array(message(enumCount, messageCount), { minLength: messageCount, maxLength: messageCount }),
      service: fc.option(
        fc.record({
          rpcs: fc.array(rpc(messageCount), { maxLength: 3 }),
          comment: fc.boolean(),
          provider: fc.option(
            fc.record(
              {
                config: fc.constantFrom("M0", "M1", "Missing"),
                render: fc.boolean(),
                hooks: fc.array(fc.constantFrom(...hookPoints), { maxLength: 2 }),
                slash: fc.boolean(),
              },
              { requiredKeys: [] },
            ),
            { freq: 3, nil: undefined },
          ),
        }),
        { freq: 10, nil: undefined },
      ),
    }),
  );

function typeName(t: FieldType): string {
  if ("scalar" in t) return t.scalar;
  if ("enumIndex" in t) return `E${t.enumIndex}`;
  if ("messageIndex" in t) return `M${t.messageIndex}`;
  return t.wellKnown;
}

/** Prints `model` as the proto file `fileName` (package derived from the name). */
export function printProto(fileName: string, model: ProtoModel): string {
  const pkg = `fuzz.${fileName.replace(/\.proto$/, "").replace(/\W/g, "_")}`;
  const imports = new Set<string>(["harnesstool/v1/annotations.proto"]);
  const use = (t: FieldType) => {
    if ("wellKnown" in t) imports.add(wellKnown[t.wellKnown]);
  };
  const body: string[] = [];
  const comment = (on: boolean, text: string, indent = "") => (on ? [`${indent}// ${text}`] : []);

  model.enums.forEach((e, i) => {
    body.push(...comment(e.comment, `Enum ${i}.`), `enum E${i} {`);
    for (let v = 0; v < e.values; v++)
      body.push(...comment(e.comment, `Value ${v}.`, "  "), `  E${i}_${v === 0 ? "UNSPECIFIED" : `V${v}`} = ${v};`);
    body.push("}", "");
  });

  model.messages.forEach((m, i) => {
    body.push(...comment(m.comment, `Message ${i}.`), `message M${i} {`);
    if (m.jsonSchema !== undefined)
      body.push(`  option (harnesstool.v1.schema).json_schema = ${JSON.stringify(m.jsonSchema)};`);
    const oneof: string[] = [];
    let number = 1;
    for (const f of m.fields) {
      use(f.type);
      const opts = Object.entries(f.options).map(
        ([k, v]) => `(harnesstool.v1.field).${k} = ${typeof v === "string" ? JSON.stringify(v) : String(v)}`,
      );
      const suffix = opts.length > 0 ? ` [${opts.join(", ")}]` : "";
      const lines = comment(f.comment, `Field ${f.name}.`, "  ");
      // proto2 needs a label on every singular field; a oneof member and a map take none.
      const singular = model.syntax === "proto2" ? "optional " : "";
      let decl: string;
      if (f.label === "map") {
        use(f.mapValue);
        decl = `map<string, ${typeName(f.mapValue)}> ${f.name} = ${number++}`;
      } else if (f.label === "oneof") {
        oneof.push(...lines.map((l) => `  ${l}`), `    ${typeName(f.type)} ${f.name} = ${number++}${suffix};`);
        continue;
      } else if (f.label === "repeated") decl = `repeated ${typeName(f.type)} ${f.name} = ${number++}`;
      else if (f.label === "optional") decl = `optional ${typeName(f.type)} ${f.name} = ${number++}`;
      else decl = `${singular}${typeName(f.type)} ${f.name} = ${number++}`;
      body.push(...lines, `  ${decl}${suffix};`);
    }
    if (oneof.length > 0) body.push("  oneof choice {", ...oneof, "  }");
    body.push("}", "");
  });

  if (model.service) {
    const s = model.service;
    body.push(...comment(s.comment, "The service."), "service FuzzService {");
    if (s.provider) {
      const p = s.provider;
      const parts: string[] = [];
      if (p.config !== undefined) parts.push(`config: ${JSON.stringify(p.config)}`);
      if (p.render !== undefined) parts.push(`render: ${p.render}`);
      if (p.hooks !== undefined) parts.push(`supported_hook_points: [${p.hooks.join(", ")}]`);
      if (p.slash) parts.push('slash_commands: [{name: "go", description: "Go.", template: "Go {{args}}"}]');
      body.push(`  option (harnesstool.v1.provider) = {${parts.join(" ")}};`);
    }
    s.rpcs.forEach((r, i) => {
      const response = r.response === "empty" ? "google.protobuf.Empty" : `M${r.response}`;
      if (r.response === "empty") imports.add(wellKnown["google.protobuf.Empty"]);
      const req = r.streaming === "client" ? `stream M${r.request}` : `M${r.request}`;
      const res = r.streaming === "server" ? `stream ${response}` : response;
      body.push(...comment(r.comment, `Rpc ${i}.`, "  "));
      if (!r.tool) {
        body.push(`  rpc Call${i}(${req}) returns (${res});`);
        return;
      }
      const t = r.tool;
      const o: string[] = [];
      if (t.name !== undefined) o.push(`name: ${JSON.stringify(t.name)}`);
      if (t.description !== undefined) o.push(`description: ${JSON.stringify(t.description)}`);
      if (t.kind !== undefined) o.push(`kind: ${t.kind}`);
      if (t.risk !== undefined) o.push(`risk: ${t.risk}`);
      if (t.streaming !== undefined) o.push(`streaming: ${t.streaming}`);
      if (t.processBacked !== undefined) o.push(`process_backed: ${t.processBacked}`);
      if (t.concurrency !== undefined)
        o.push(
          `concurrency: {safe: ${t.concurrency.safe} key_fields: [${t.concurrency.keyFields.map((k) => JSON.stringify(k)).join(", ")}]}`,
        );
      if (t.timeout !== undefined) o.push(`default_timeout: {seconds: ${t.timeout.seconds} nanos: ${t.timeout.nanos}}`);
      if (t.idempotent !== undefined) o.push(`idempotent: ${t.idempotent}`);
      if (t.terminatesTurn !== undefined) o.push(`terminates_turn: ${t.terminatesTurn}`);
      if (t.preview !== undefined) o.push(`preview: ${t.preview}`);
      body.push(
        `  rpc Call${i}(${req}) returns (${res}) {`,
        `    option (harnesstool.v1.tool) = {${o.join(" ")}};`,
        "  }",
      );
    });
    body.push("}", "");
  }

  return [
    `syntax = "${model.syntax}";`,
    "",
    `package ${pkg};`,
    "",
    ...[...imports].sort().map((i) => `import "${i}";`),
    "",
    ...body,
  ].join("\n");
}

const subsetScalars = ["string", "bool", "double", "float", "int32", "uint32", "int64"] as const;

function subsetField(index: number, messages: number, enums: number): fc.Arbitrary<FieldModel> {
  // Only messages after this one: no recursion.
  const types: fc.Arbitrary<FieldType>[] = [
    fc.constantFrom(...subsetScalars).map((scalar) => ({ scalar })),
    fc
      .constantFrom<WellKnown>("google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.StringValue")
      .map((w) => ({ wellKnown: w })),
  ];
  if (index + 1 < messages)
    types.push(fc.integer({ min: index + 1, max: messages - 1 }).map((messageIndex) => ({ messageIndex })));
  if (enums > 0) types.push(fc.nat(enums - 1).map((enumIndex) => ({ enumIndex })));
  return fc.record({
    name: fc.constant(""),
    type: fc.oneof(...types),
    label: fc.constantFrom("", "repeated", "optional"),
    mapValue: fc.constant({ scalar: "string" as const }),
    options: fc.record({ description: fc.constant("Described."), required: fc.boolean() }, { requiredKeys: [] }),
    comment: fc.constant(true),
  });
}

const subsetTool = fc
  .oneof(
    fc.record({
      kind: fc.constant("TOOL_KIND_DATA_SOURCE" as const),
      risk: fc.constant("RISK_CLASS_READ_ONLY" as const),
      streaming: fc.boolean(),
      concurrency: fc.constant({ safe: true, keyFields: [] }),
      idempotent: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant("TOOL_KIND_RESOURCE" as const),
      risk: fc.constantFrom(
        "RISK_CLASS_LOW" as const,
        "RISK_CLASS_MODERATE" as const,
        "RISK_CLASS_HIGH" as const,
        "RISK_CLASS_CRITICAL" as const,
      ),
      streaming: fc.boolean(),
      concurrency: fc.constantFrom({ safe: false, keyFields: [] }, { safe: true, keyFields: [] }),
      idempotent: fc.boolean(),
      terminatesTurn: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant("TOOL_KIND_INTERACTIVE" as const),
      risk: fc.constant("RISK_CLASS_READ_ONLY" as const),
      idempotent: fc.constant(false),
    }),
  )
  .chain((tool) =>
    fc
      .record({ seconds: fc.integer({ min: 1, max: 600 }), nanos: fc.constantFrom(0, 500_000_000) })
      .map((timeout) => ({ ...tool, timeout })),
  );

/** Proto files inside harness-tool's subset (what the plugin must generate without an error). */
export const subsetProtoModel: fc.Arbitrary<ProtoModel> = fc
  .record({ enumCount: fc.nat(2), messageCount: fc.integer({ min: 2, max: 5 }) })
  .chain(({ enumCount, messageCount }) =>
    fc.record({
      syntax: fc.constant("proto3" as const),
      enums: fc.array(fc.record({ values: fc.integer({ min: 2, max: 4 }), comment: fc.constant(true) }), {
        minLength: enumCount,
        maxLength: enumCount,
      }),
      messages: fc.tuple(
        ...Array.from({ length: messageCount }, (_, i) =>
          fc.record({
            fields: fc
              .uniqueArray(fc.tuple(fc.constantFrom(...fieldNames), subsetField(i, messageCount, enumCount)), {
                minLength: 1,
                maxLength: 4,
                selector: ([n]) => n,
              })
              .map((pairs) => pairs.map(([name, f]) => ({ ...f, name }))),
            jsonSchema: fc.constant(undefined),
            comment: fc.constant(true),
          }),
        ),
      ),
      service: fc.record({
        rpcs: fc.array(
          fc.record({
            request: fc.constant(0),
            response: fc.constant(1),
            streaming: fc.constant("" as const),
            comment: fc.constant(true),
            tool: subsetTool,
          }),
          { minLength: 1, maxLength: 3 },
        ),
        comment: fc.constant(true),
        provider: fc.constant(undefined),
      }),
    }),
  );
