/**
 * The first stage of the pipeline: descriptors and harness-tool options resolved into plain
 * models (one per generated file), or diagnostics with proto source positions. The ToolSchema
 * invariants are the runtime's own (`checkToolDeclaration`), mapped to the option each is about.
 * Emitters read only these models.
 */
import { getOption, hasOption, type DescFile, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import {
  provider as providerOption,
  ProviderOptionsSchema,
  tool as toolOption,
  ToolOptionsSchema,
  type ProviderOptions,
  type ToolOptions,
} from "../generated/harnesstool/v1/annotations_pb.js";
import { ConcurrencySpecSchema } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { HookPoint } from "../generated/pluggableharness/common/v1/common_pb.js";
import type { ConfigAttributeDeclaration } from "../runtime/provider/provider-definition.js";
import type { JsonSchemaObject } from "../runtime/schema/json-schema.js";
import { checkToolDeclaration, checkToolDeclarations, type InvariantSubject, type InvariantViolation } from "../runtime/schema/invariants.js";
import { riskNames, toolKindNames, type ToolDeclaration } from "../runtime/schema/tool-declaration.js";
import { configAttributes } from "./config-model.js";
import { DiagnosticSink } from "./diagnostics.js";
import { MessageShapes } from "./json-schema-from-message.js";
import { IdentifierAllocator, lowerCamelCase, pascalCase, providerBaseName, snakeCase } from "./names.js";
import { toToolSchema } from "./shape-to-json-schema.js";
import { fieldNumber, sourcePathParts, SourceIndex, type FieldName } from "./source-locations.js";
import type { NamedShape, ObjectShape, ValueShape } from "./value-shape.js";

/** A tool's input or output. */
export interface ToolMessageModel {
  /** The type the handler sees, e.g. `ReadFileInput`. */
  readonly typeName: string;
  /** The message's shape; `shape.typeName` differs from `typeName` when the message is shared. */
  readonly shape: NamedShape;
  readonly schema: JsonSchemaObject;
  /** The identifiers of the JSON Schema constant and the validator. */
  readonly schemaConst: string;
  readonly validator: string;
  /** The tool whose constant this one aliases (same message), if any. */
  readonly sameAs?: ToolMessageModel;
}

/** One tool, resolved. */
export interface ToolModel {
  readonly rpcName: string;
  /** `Service.Rpc`, for diagnostics. */
  readonly scope: string;
  readonly declaration: ToolDeclaration;
  /** The handler method (`readFile`) and, with preview, the preview method (`previewReadFile`). */
  readonly handlerName: string;
  readonly previewName: string | undefined;
  /** The tool constant, e.g. `readFileTool`. */
  readonly toolConst: string;
  readonly input: ToolMessageModel;
  readonly output: ToolMessageModel;
}

/** A provider's configuration. */
export interface ConfigModel {
  readonly messageName: string;
  readonly shape: ObjectShape;
  readonly attributes: readonly ConfigAttributeDeclaration[];
}

/** One annotated service. */
export interface ProviderModel {
  readonly serviceName: string;
  readonly description: string;
  readonly identity: { readonly name: string; readonly source: string; readonly version: string | undefined };
  readonly tools: readonly ToolModel[];
  readonly config: ConfigModel | undefined;
  readonly slashCommands: readonly { readonly name: string; readonly description: string; readonly template: string }[];
  /** HookPoint member names as protoc-gen-es spells them, e.g. `PRE_TOOL_CALL`. */
  readonly hookPoints: readonly string[];
  readonly render: boolean;
  /** Generated identifiers of the provider. */
  readonly names: {
    readonly handlers: string;
    readonly config: string;
    readonly configConst: string;
    readonly options: string;
    readonly factory: string;
    readonly toolSchemas: string;
  };
}

/** The generated modules of one proto file (`<file>_tool` and its companion `<file>_tool_schemas`). */
export interface FileModel {
  /** The proto file's name as protoc gives it, e.g. `examples/fs/v1/fs.proto`. */
  readonly protoFile: string;
  /** The generated API module's path without its extension, e.g. `examples/fs/v1/fs_tool`. */
  readonly outputBase: string;
  readonly providers: readonly ProviderModel[];
}

/** The model of every file to generate, or why it cannot be built. */
export interface ModelResult {
  readonly files: readonly FileModel[];
  readonly diagnostics: DiagnosticSink;
}

/** Type names the generated code imports; messages never take them. */
export const importedTypeNames = [
  "ConfigDefinition",
  "JsonSchemaObject",
  "PreviewContext",
  "ProcessToolContext",
  "ProviderDefinition",
  "RenderHandler",
  "RenderTreeInit",
  "StreamingToolContext",
  "ToolContext",
  "ToolDefinition",
  "ToolSchema",
  "ValueViolation",
  "HookPoint",
];

/** Global types a generated file may rely on (or a handler author expect), never shadowed. */
const globalTypeNames = new Set([
  "Array", "ArrayBuffer", "Boolean", "Date", "Error", "Exclude", "Extract", "Function", "Iterable", "JSON", "Map", "Math",
  "NonNullable", "Number", "Object", "Omit", "Partial", "Pick", "Promise", "Readonly", "ReadonlyArray", "Record", "RegExp",
  "Required", "Set", "String", "Symbol", "Uint8Array",
]);

// Source paths of the options, relative to the rpc or service, from the generated descriptors.
const toolOptionPath = [sourcePathParts.METHOD_OPTIONS, toolOption.number];
const providerOptionPath = [sourcePathParts.SERVICE_OPTIONS, providerOption.number];
const toolField = (name: FieldName<ToolOptions>): number[] => [...toolOptionPath, fieldNumber(ToolOptionsSchema, name)];
const providerField = (name: FieldName<ProviderOptions>): number[] => [...providerOptionPath, fieldNumber(ProviderOptionsSchema, name)];

// Where, relative to the rpc, each invariant subject is written.
const subjectPaths: { readonly [S in InvariantSubject]: readonly number[] } = {
  name: toolField("name"),
  description: toolField("description"),
  kind: toolField("kind"),
  risk: toolField("risk"),
  concurrency: toolField("concurrency"),
  "concurrency.key_fields": [...toolField("concurrency"), fieldNumber(ConcurrencySpecSchema, "keyFields")],
  terminates_turn: toolField("terminatesTurn"),
  idempotent: toolField("idempotent"),
  streaming: toolField("streaming"),
  input_schema: [sourcePathParts.METHOD_INPUT_TYPE],
  output_schema: [sourcePathParts.METHOD_OUTPUT_TYPE],
  default_timeout: toolField("defaultTimeout"),
};

/** True when the service is a provider: it has the provider option or a tool rpc. */
export function isAnnotatedService(service: DescService): boolean {
  return hasOption(service, providerOption) || service.methods.some((m) => hasOption(m, toolOption));
}

/** Builds the model of every file in `files` with at least one annotated service. */
export function buildModel(files: readonly DescFile[]): ModelResult {
  const diagnostics = new DiagnosticSink();
  const source = new SourceIndex();
  const out: FileModel[] = [];
  for (const file of files) {
    const services = file.services.filter(isAnnotatedService);
    if (services.length === 0) continue;
    out.push(buildFileModel(file, services, source, diagnostics));
  }
  return { files: out, diagnostics };
}

function buildFileModel(file: DescFile, services: readonly DescService[], source: SourceIndex, diagnostics: DiagnosticSink): FileModel {
  const types = new IdentifierAllocator(importedTypeNames);
  const values = new IdentifierAllocator(["toolDefinition", "toolPart", "assembleProvider", "typeOfJson", "escapePointer", "toolDeclarationToWire", "HookPoint"]);
  const messageNames = new Map<DescMessage, string>();
  const typeNameOf = (message: DescMessage): string => {
    let name = messageNames.get(message);
    if (name === undefined) {
      const wanted = nestedTypeName(message);
      // A message named like a global type (Record, Map, Error) would shadow it in the file.
      name = types.allocate(globalTypeNames.has(wanted) ? `${wanted}Message` : wanted);
      messageNames.set(message, name);
    }
    return name;
  };
  const shapes = new MessageShapes({ source, diagnostics, typeNameOf });

  // Provider-level names first, so no message type takes them.
  const rpcCount = new Map<string, number>();
  for (const service of services) for (const m of service.methods) rpcCount.set(m.name, (rpcCount.get(m.name) ?? 0) + 1);
  const plans = services.map((service) => {
    const base = providerBaseName(service.name);
    const lower = lowerCamelCase(base);
    return {
      service,
      base,
      names: {
        handlers: types.allocate(`${base}Handlers`),
        config: types.allocate(`${base}Config`),
        options: types.allocate(`${base}ProviderOptions`),
        configConst: values.allocate(`${lower}Config`),
        factory: values.allocate(`create${base}Provider`),
        toolSchemas: values.allocate(`${lower}ToolSchemas`),
      },
    };
  });
  // Tool inputs and outputs name their messages before nested messages are named.
  const ioNames = new Map<DescMethod, { input: string; output: string }>();
  for (const { service, base } of plans) {
    for (const method of service.methods) {
      const prefix = (rpcCount.get(method.name) ?? 0) > 1 ? `${base}${method.name}` : method.name;
      const claim = (message: DescMessage, wanted: string): string => {
        const name = types.allocate(wanted);
        if (!messageNames.has(message)) messageNames.set(message, name);
        return name;
      };
      ioNames.set(method, { input: claim(method.input, `${pascalCase(prefix)}Input`), output: claim(method.output, `${pascalCase(prefix)}Output`) });
    }
  }

  const providers = plans.map(({ service, base, names }) =>
    buildProviderModel(service, base, names, { source, diagnostics, shapes, values, ioNames, rpcCount }),
  );
  return { protoFile: file.proto.name, outputBase: `${file.name}_tool`, providers };
}

interface ProviderContext {
  readonly source: SourceIndex;
  readonly diagnostics: DiagnosticSink;
  readonly shapes: MessageShapes;
  readonly values: IdentifierAllocator;
  readonly ioNames: Map<DescMethod, { input: string; output: string }>;
  readonly rpcCount: Map<string, number>;
}

function buildProviderModel(service: DescService, base: string, names: ProviderModel["names"], ctx: ProviderContext): ProviderModel {
  const { source, diagnostics } = ctx;
  const options = hasOption(service, providerOption) ? getOption(service, providerOption) : undefined;
  const scope = service.name;
  const tools: ToolModel[] = [];
  const seenIo = new Map<DescMessage, ToolMessageModel>();
  const brokenInputs = new Set<ToolModel>();
  const brokenOutputs = new Set<ToolModel>();
  const methods = new Map<ToolModel, DescMethod>();

  if (service.methods.length === 0) {
    diagnostics.error(source.position(service), scope, "the provider declares no tools", "add an rpc annotated with (harnesstool.v1.tool)");
  }
  for (const method of service.methods) {
    const toolScope = `${service.name}.${method.name}`;
    if (!hasOption(method, toolOption)) {
      diagnostics.error(source.position(method), toolScope, "the rpc has no (harnesstool.v1.tool) option, and every rpc of a provider service is a tool", "annotate it with option (harnesstool.v1.tool) = {...}, or move it to a service that is not a provider");
      continue;
    }
    if (method.methodKind !== "unary") {
      diagnostics.error(source.position(method), toolScope, `the rpc is ${method.methodKind.replace("_", "-")}; a tool rpc takes one request and returns one response`, "remove `stream` and set streaming: true in (harnesstool.v1.tool) if the tool emits intermediate events");
    }
    const opts = getOption(method, toolOption);
    const prefix = (ctx.rpcCount.get(method.name) ?? 0) > 1 ? `${base}${method.name}` : method.name;
    const lower = lowerCamelCase(prefix);
    const io = ctx.ioNames.get(method) ?? { input: `${prefix}Input`, output: `${prefix}Output` };

    const resolveIo = (message: DescMessage, typeName: string, which: "input" | "output"): { model: ToolMessageModel; broken: boolean } => {
      const shape = ctx.shapes.toolMessage(message, toolScope);
      let broken = shape === undefined;
      let target: ValueShape | undefined = shape?.target;
      if (shape && target && target.kind !== "object") {
        diagnostics.error(source.position(method, subjectPaths[which === "input" ? "input_schema" : "output_schema"]), toolScope, `the ${which} message ${message.typeName} has a json_schema of type ${target.kind}, and a tool's ${which} must be an object`, 'give json_schema "type": "object" at the root');
        broken = true;
        target = undefined;
      }
      const named: NamedShape = shape && !broken ? shape : { kind: "named", typeName, messageName: message.typeName, target: { kind: "object", properties: [] } };
      const model: ToolMessageModel = {
        typeName,
        shape: named,
        schema: toToolSchema(named),
        schemaConst: ctx.values.allocate(`${lower}${which === "input" ? "Input" : "Output"}Schema`),
        validator: ctx.values.allocate(`validate${pascalCase(prefix)}${which === "input" ? "Input" : "Output"}`),
        ...(seenIo.has(message) ? { sameAs: seenIo.get(message) as ToolMessageModel } : {}),
      };
      if (!seenIo.has(message)) seenIo.set(message, model);
      return { model, broken };
    };
    const input = resolveIo(method.input, io.input, "input");
    const output = resolveIo(method.output, io.output, "output");

    const description = opts.description !== undefined && opts.description.trim() !== "" ? opts.description : source.leadingComment(method);
    const timeout = opts.defaultTimeout;
    const keyFields = opts.concurrency?.keyFields ?? [];
    const declaration: ToolDeclaration = {
      name: opts.name ?? snakeCase(method.name),
      kind: toolKindNames[opts.kind - 1] ?? "unspecified",
      risk: riskNames[opts.risk - 1] ?? "unspecified",
      description,
      inputSchema: input.model.schema,
      outputSchema: output.model.schema,
      // The option's own comment: process_backed implies streaming.
      streaming: opts.streaming || opts.processBacked,
      processBacked: opts.processBacked,
      ...(opts.concurrency ? { concurrency: { safe: opts.concurrency.safe, ...(keyFields.length > 0 ? { keyFields: [...keyFields] } : {}) } } : {}),
      ...(timeout ? { defaultTimeoutMs: Number(timeout.seconds) * 1000 + timeout.nanos / 1e6 } : {}),
      idempotent: opts.idempotent,
      terminatesTurn: opts.terminatesTurn,
      preview: opts.preview,
    };
    const tool: ToolModel = {
      rpcName: method.name,
      scope: toolScope,
      declaration,
      handlerName: lowerCamelCase(method.name),
      previewName: opts.preview ? `preview${pascalCase(method.name)}` : undefined,
      toolConst: ctx.values.allocate(`${lower}Tool`),
      input: input.model,
      output: output.model,
    };
    if (input.broken) brokenInputs.add(tool);
    if (output.broken) brokenOutputs.add(tool);
    tools.push(tool);
    methods.set(tool, method);
  }

  // The invariants, written once in the runtime, reported where the option is written.
  const methodOf = (tool: ToolModel): DescMethod => methods.get(tool) as DescMethod;
  const report = (tool: ToolModel, v: InvariantViolation): void => {
    if (brokenInputs.has(tool) && (v.rule === "key-fields-in-input" || v.rule === "input-schema-subset")) return;
    if (brokenOutputs.has(tool) && v.rule === "output-schema-subset") return;
    let path = subjectPaths[v.subject];
    if (v.rule === "key-fields-in-input") {
      const key = /key field ("(?:[^"\\]|\\.)*")/.exec(v.message)?.[1];
      const index = key === undefined ? -1 : (tool.declaration.concurrency?.keyFields ?? []).indexOf(JSON.parse(key) as string);
      if (index >= 0) path = [...path, index];
    }
    const at = source.position(methodOf(tool), path);
    if (v.severity === "warning") diagnostics.warning(at, tool.scope, v.message, v.fix, v.rule);
    else diagnostics.error(at, tool.scope, v.message, v.fix, v.rule);
  };
  for (const tool of tools) for (const v of checkToolDeclaration(tool.declaration)) report(tool, v);
  const occurrences = new Map<string, number>();
  const duplicates = checkToolDeclarations(tools.map((t) => t.declaration)).filter((v) => v.rule === "name-unique");
  for (const v of duplicates) {
    const n = (occurrences.get(v.tool) ?? 0) + 1;
    occurrences.set(v.tool, n);
    const tool = tools.filter((t) => t.declaration.name === v.tool)[n];
    if (tool) report(tool, v);
  }

  // Handler names must not collide (an rpc `Render` beside render, `PreviewX` beside X's preview).
  const members = new Map<string, string>();
  const claimMember = (name: string, what: string, tool: ToolModel): void => {
    const earlier = members.get(name);
    if (earlier !== undefined) {
      diagnostics.error(source.position(methodOf(tool)), tool.scope, `the handler member ${name} (${what}) clashes with ${earlier}`, "rename the rpc");
    } else members.set(name, what);
  };
  if (options?.render) members.set("render", "the provider's render handlers");
  for (const tool of tools) {
    claimMember(tool.handlerName, `the handler of ${tool.declaration.name}`, tool);
    if (tool.previewName) claimMember(tool.previewName, `the preview of ${tool.declaration.name}`, tool);
  }

  const config = options?.config !== undefined ? resolveConfig(service, options.config, ctx) : undefined;
  const hookPoints: string[] = [];
  for (const [index, point] of (options?.supportedHookPoints ?? []).entries()) {
    const name = HookPoint[point];
    if (point === HookPoint.UNSPECIFIED || name === undefined) {
      diagnostics.error(source.position(service, [...providerField("supportedHookPoints"), index]), scope, `supported_hook_points[${index}] is not a hook point`, "name one of the HOOK_POINT_* values other than HOOK_POINT_UNSPECIFIED");
    } else hookPoints.push(name);
  }
  return {
    serviceName: service.name,
    description: source.leadingComment(service),
    identity: { name: options?.name ?? snakeCase(base), source: options?.source ?? "", version: options?.version },
    tools,
    config,
    slashCommands: (options?.slashCommands ?? []).map((c) => ({ name: c.name, description: c.description, template: c.template })),
    hookPoints,
    render: options?.render === true,
    names,
  };
}

function resolveConfig(service: DescService, name: string, ctx: ProviderContext): ConfigModel | undefined {
  const file = service.file;
  const wanted = name.replace(/^\./, "");
  const candidates = file.proto.package !== "" && !name.startsWith(".") ? [`${file.proto.package}.${wanted}`, wanted] : [wanted];
  const message = findMessage(file, candidates);
  if (!message) {
    ctx.diagnostics.error(ctx.source.position(service, providerField("config")), service.name, `config names ${JSON.stringify(name)}, which is not a message of this file or its imports`, `name a message, e.g. config: "${service.name.replace(/Service$/, "")}Config"`);
    return undefined;
  }
  const shape = ctx.shapes.configMessage(message, service.name);
  if (!shape) return undefined;
  return { messageName: message.typeName, shape, attributes: configAttributes(shape) };
}

function findMessage(file: DescFile, candidates: readonly string[]): DescMessage | undefined {
  const files = [file, ...file.dependencies];
  for (const candidate of candidates) {
    for (const f of files) {
      const walk = (messages: readonly DescMessage[]): DescMessage | undefined => {
        for (const m of messages) {
          if (m.typeName === candidate) return m;
          const nested = walk(m.nestedMessages);
          if (nested) return nested;
        }
        return undefined;
      };
      const found = walk(f.messages);
      if (found) return found;
    }
  }
  return undefined;
}

/** `Outer.Inner` -> `OuterInner`: nested message names joined, as a TypeScript type name. */
function nestedTypeName(message: DescMessage): string {
  return message.parent ? `${nestedTypeName(message.parent)}${message.name}` : message.name;
}
