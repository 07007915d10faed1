/**
 * One annotated service resolved into its provider model: each rpc into a tool (declaration,
 * input and output), the runtime's ToolSchema invariants reported where the option is written,
 * handler member names checked for clashes, the config message and hook points resolved.
 */
import {
  getOption,
  hasOption,
  type DescField,
  type DescFile,
  type DescMessage,
  type DescMethod,
  type DescService,
} from "@bufbuild/protobuf";
import { durationMs, type Duration } from "@bufbuild/protobuf/wkt";
import {
  provider as providerOption,
  ProviderOptionsSchema,
  tool as toolOption,
  ToolOptionsSchema,
  type ProviderOptions,
  type ToolOptions,
} from "harness-tool/generated/harnesstool/v1/annotations_pb.js";
import { HookPoint, PromptExpansionSpecSchema } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import { ConcurrencySpecSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import {
  checkConfigAttributeDeclarations,
  checkSlashCommands,
  checkSource,
  checkToolDeclaration,
  checkToolDeclarations,
  riskNames,
  toolKindNames,
  type InvariantSubject,
  type InvariantViolation,
  type ProviderViolation,
  type ToolDeclaration,
} from "harness-tool/schema";
import { configAttributes } from "./config-model.js";
import type { DiagnosticSink, SourcePosition } from "./diagnostics.js";
import type { MessageShapes } from "./message-shapes.js";
import { lowerCamelCase, pascalCase, snakeCase, type IdentifierAllocator } from "./names.js";
import { toToolSchema } from "./json-schema-from-shape.js";
import { fieldNumber, sourcePathParts, type FieldName, type SourceIndex } from "./source-locations.js";
import type { ConfigModel } from "./config-model.js";
import type { ToolMessageModel, ToolModel } from "./tool-model.js";
import type { NamedShape, ValueShape } from "./value-shape.js";

/** One annotated service. */
export interface ProviderModel {
  readonly serviceName: string;
  /** The service's full name (`pkg.Service`), for the generated code's `@generated from`. */
  readonly protoName: string;
  readonly description: string;
  readonly identity: { readonly name: string; readonly source: string; readonly version: string | undefined };
  readonly tools: readonly ToolModel[];
  readonly config: ConfigModel | undefined;
  readonly slashCommands: readonly { readonly name: string; readonly description: string; readonly template: string }[];
  /**
   * HookPoint member names as protoc-gen-es spells them, e.g. `PRE_TOOL_CALL`: the points the
   * generated handlers must subscribe to.
   */
  readonly hookPoints: readonly string[];
  /** The same points as agent.hcl and `defineProvider({ hooks })` name them, e.g. `pre-tool-call`. */
  readonly hookPointNames: readonly string[];
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

// Source paths of the options, relative to the rpc or service, from the generated descriptors.
const toolOptionPath = [sourcePathParts.METHOD_OPTIONS, toolOption.number];
const providerOptionPath = [sourcePathParts.SERVICE_OPTIONS, providerOption.number];
const toolField = (name: FieldName<ToolOptions>): number[] => [...toolOptionPath, fieldNumber(ToolOptionsSchema, name)];
const providerField = (name: FieldName<ProviderOptions>): number[] => [
  ...providerOptionPath,
  fieldNumber(ProviderOptionsSchema, name),
];

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

/** What building a provider needs from the file it is in. */
export interface ProviderContext {
  readonly source: SourceIndex;
  readonly diagnostics: DiagnosticSink;
  readonly shapes: MessageShapes;
  /** The names the file's modules declare (tool constants, schema constants, validators, types). */
  readonly identifiers: IdentifierAllocator;
  /** The type names of each rpc's input and output, claimed before nested messages are named. */
  readonly ioNames: ReadonlyMap<DescMethod, { readonly input: string; readonly output: string }>;
  /** How many services of the file have an rpc of each name (a shared name takes the provider prefix). */
  readonly rpcCount: ReadonlyMap<string, number>;
}

/** A tool with the rpc it came from, and whether its input or output could not be resolved. */
interface BuiltTool {
  readonly tool: ToolModel;
  readonly method: DescMethod;
  readonly brokenInput: boolean;
  readonly brokenOutput: boolean;
}

/** Resolves one annotated service; every problem is recorded in `ctx.diagnostics`. */
export function buildProviderModel(
  service: DescService,
  base: string,
  names: ProviderModel["names"],
  ctx: ProviderContext,
): ProviderModel {
  const options = hasOption(service, providerOption) ? getOption(service, providerOption) : undefined;
  if (service.methods.length === 0) {
    ctx.diagnostics.error(
      ctx.source.position(service),
      service.name,
      "the provider declares no tools",
      "add an rpc annotated with (harnesstool.v1.tool)",
    );
  }
  // Tools sharing a message share its schema constant (the later ones alias the first).
  const seenIo = new Map<DescMessage, ToolMessageModel>();
  const built = service.methods.flatMap((method) => buildTool(method, base, seenIo, ctx) ?? []);
  reportInvariants(built, ctx);
  reportProviderRules(service, options, ctx);
  const hookPoints = resolveHookPoints(service, options?.supportedHookPoints ?? [], ctx);
  checkHandlerMembers(built, options?.render === true, hookPoints.length > 0, ctx);
  return {
    serviceName: service.name,
    protoName: service.typeName,
    description: ctx.source.leadingComment(service),
    identity: { name: options?.name ?? snakeCase(base), source: options?.source ?? "", version: options?.version },
    tools: built.map((b) => b.tool),
    config: options?.config !== undefined ? resolveConfig(service, options.config, ctx) : undefined,
    slashCommands: (options?.slashCommands ?? []).map((c) => ({
      name: c.name,
      description: c.description,
      template: c.template,
    })),
    hookPoints,
    hookPointNames: hookPoints.map(hookPointName),
    render: options?.render === true,
    names,
  };
}

/** One rpc as a tool, or undefined (with an error) when it has no tool option. */
function buildTool(
  method: DescMethod,
  base: string,
  seenIo: Map<DescMessage, ToolMessageModel>,
  ctx: ProviderContext,
): BuiltTool | undefined {
  const { source, diagnostics } = ctx;
  const scope = `${method.parent.name}.${method.name}`;
  if (!hasOption(method, toolOption)) {
    diagnostics.error(
      source.position(method),
      scope,
      "the rpc has no (harnesstool.v1.tool) option, and every rpc of a provider service is a tool",
      "annotate it with option (harnesstool.v1.tool) = {...}, or move it to a service that is not a provider",
    );
    return undefined;
  }
  if (method.methodKind !== "unary") {
    diagnostics.error(
      source.position(method),
      scope,
      `the rpc is ${method.methodKind.replace("_", "-")}; a tool rpc takes one request and returns one response`,
      "remove `stream` and set streaming: true in (harnesstool.v1.tool) if the tool emits intermediate events",
    );
  }
  const opts = getOption(method, toolOption);
  const prefix = (ctx.rpcCount.get(method.name) ?? 0) > 1 ? `${base}${method.name}` : method.name;
  const io = ctx.ioNames.get(method) ?? { input: `${prefix}Input`, output: `${prefix}Output` };
  const at = { method, scope, prefix, seenIo };
  const input = toolMessage(method.input, io.input, "input", at, ctx);
  const output = toolMessage(method.output, io.output, "output", at, ctx);
  const tool: ToolModel = {
    rpcName: method.name,
    protoName: `${method.parent.typeName}.${method.name}`,
    scope,
    declaration: toolDeclaration(method, opts, input.model, output.model, { source, diagnostics, scope }),
    handlerName: lowerCamelCase(method.name),
    previewName: opts.preview ? `preview${pascalCase(method.name)}` : undefined,
    toolConst: ctx.identifiers.allocate(`${lowerCamelCase(prefix)}Tool`),
    input: input.model,
    output: output.model,
  };
  return { tool, method, brokenInput: input.broken, brokenOutput: output.broken };
}

/** The ToolDeclaration the options state, as the runtime checks and serves it. */
function toolDeclaration(
  method: DescMethod,
  opts: ToolOptions,
  input: ToolMessageModel,
  output: ToolMessageModel,
  at: { readonly source: SourceIndex; readonly diagnostics: DiagnosticSink; readonly scope: string },
): ToolDeclaration {
  const { source } = at;
  const description =
    opts.description !== undefined && opts.description.trim() !== "" ? opts.description : source.leadingComment(method);
  const timeout = opts.defaultTimeout
    ? defaultTimeoutMs(opts.defaultTimeout, () => source.position(method, subjectPaths.default_timeout), at)
    : undefined;
  const keyFields = opts.concurrency?.keyFields ?? [];
  return {
    name: opts.name ?? snakeCase(method.name),
    kind: toolKindNames[opts.kind - 1] ?? "unspecified",
    risk: riskNames[opts.risk - 1] ?? "unspecified",
    description,
    inputSchema: input.schema,
    outputSchema: output.schema,
    // The option's own comment: process_backed implies streaming.
    streaming: opts.streaming || opts.processBacked,
    processBacked: opts.processBacked,
    ...(opts.concurrency
      ? { concurrency: { safe: opts.concurrency.safe, ...(keyFields.length > 0 ? { keyFields: [...keyFields] } : {}) } }
      : {}),
    ...(timeout !== undefined ? { defaultTimeoutMs: timeout } : {}),
    idempotent: opts.idempotent,
    terminatesTurn: opts.terminatesTurn,
    preview: opts.preview,
  };
}

/** google.protobuf.Duration's range: ±10,000 years in seconds, nanos below one second with the seconds' sign. */
const maxDurationSeconds = 315_576_000_000n;

/**
 * The default timeout in milliseconds (durationMs), with an error where the Duration is outside
 * google.protobuf.Duration's range or is not a whole number of milliseconds (the wire carries whole
 * milliseconds, so a fraction would be rounded away unseen).
 */
function defaultTimeoutMs(
  timeout: Duration,
  position: () => SourcePosition,
  at: { readonly diagnostics: DiagnosticSink; readonly scope: string },
): number {
  const { seconds, nanos } = timeout;
  const sign = (n: bigint | number): number => (n > 0 ? 1 : n < 0 ? -1 : 0);
  if (
    seconds > maxDurationSeconds ||
    seconds < -maxDurationSeconds ||
    Math.abs(nanos) > 999_999_999 ||
    sign(seconds) * sign(nanos) < 0
  ) {
    at.diagnostics.error(
      position(),
      at.scope,
      `default_timeout {seconds: ${seconds}, nanos: ${nanos}} is out of google.protobuf.Duration's range`,
      "give seconds within ±315576000000 and nanos below one second, with the same sign",
    );
  } else if (nanos % 1_000_000 !== 0) {
    at.diagnostics.error(
      position(),
      at.scope,
      `default_timeout {seconds: ${seconds}, nanos: ${nanos}} is not a whole number of milliseconds`,
      "round nanos to a multiple of 1000000",
    );
  }
  return durationMs(timeout);
}

/**
 * A tool's input or output message: its shape (an empty object stands in when it cannot be
 * resolved, so the rest of the tool is still checked), schema and generated names.
 */
function toolMessage(
  message: DescMessage,
  typeName: string,
  which: "input" | "output",
  at: {
    readonly method: DescMethod;
    readonly scope: string;
    readonly prefix: string;
    readonly seenIo: Map<DescMessage, ToolMessageModel>;
  },
  ctx: ProviderContext,
): { model: ToolMessageModel; broken: boolean } {
  const shape = ctx.shapes.toolMessage(message, at.scope);
  let broken = shape === undefined;
  const target: ValueShape | undefined = shape?.target;
  if (shape && target && target.kind !== "object") {
    const subject = which === "input" ? "input_schema" : "output_schema";
    ctx.diagnostics.error(
      ctx.source.position(at.method, subjectPaths[subject]),
      at.scope,
      `the ${which} message ${message.typeName} has a json_schema of type ${target.kind}, and a tool's ${which} must be an object`,
      'give json_schema "type": "object" at the root',
    );
    broken = true;
  }
  const named: NamedShape =
    shape && !broken
      ? shape
      : { kind: "named", typeName, messageName: message.typeName, target: { kind: "object", properties: [] } };
  const Which = which === "input" ? "Input" : "Output";
  const earlier = at.seenIo.get(message);
  const model: ToolMessageModel = {
    typeName,
    shape: named,
    schema: toToolSchema(named),
    schemaConst: ctx.identifiers.allocate(`${lowerCamelCase(at.prefix)}${Which}Schema`),
    validator: ctx.identifiers.allocate(`validate${pascalCase(at.prefix)}${Which}`),
    ...(earlier ? { sameAs: earlier } : {}),
  };
  if (!earlier) at.seenIo.set(message, model);
  return { model, broken };
}

/**
 * The runtime's invariants (written once, in runtime/schema/invariants.ts) reported where the
 * option is written; a rule about an input or output that could not be resolved is left out,
 * since that problem is already reported.
 */
function reportInvariants(built: readonly BuiltTool[], ctx: ProviderContext): void {
  const report = ({ tool, method, brokenInput, brokenOutput }: BuiltTool, v: InvariantViolation): void => {
    if (brokenInput && (v.rule === "key-fields-in-input" || v.rule === "input-schema-subset")) return;
    if (brokenOutput && v.rule === "output-schema-subset") return;
    const path = v.index === undefined ? subjectPaths[v.subject] : [...subjectPaths[v.subject], v.index];
    const at = ctx.source.position(method, path);
    if (v.severity === "warning") ctx.diagnostics.warning(at, tool.scope, v.message, v.fix, v.rule);
    else ctx.diagnostics.error(at, tool.scope, v.message, v.fix, v.rule);
  };
  for (const b of built) for (const v of checkToolDeclaration(b.tool.declaration)) report(b, v);
  // A repeated name is reported on each tool after the first that bears it.
  const occurrences = new Map<string, number>();
  for (const v of checkToolDeclarations(built.map((b) => b.tool.declaration))) {
    if (v.rule !== "name-unique") continue;
    const n = (occurrences.get(v.tool) ?? 0) + 1;
    occurrences.set(v.tool, n);
    const repeated = built.filter((b) => b.tool.declaration.name === v.tool)[n];
    if (repeated) report(repeated, v);
  }
}

/** Handler members must not collide (an rpc `Render` beside render, `Hooks` beside hooks, `PreviewX` beside X's preview). */
function checkHandlerMembers(built: readonly BuiltTool[], render: boolean, hooks: boolean, ctx: ProviderContext): void {
  const members = new Map<string, string>();
  const claim = (name: string, what: string, { tool, method }: BuiltTool): void => {
    const earlier = members.get(name);
    if (earlier !== undefined) {
      ctx.diagnostics.error(
        ctx.source.position(method),
        tool.scope,
        `the handler member ${name} (${what}) clashes with ${earlier}`,
        "rename the rpc",
      );
    } else members.set(name, what);
  };
  if (render) members.set("render", "the provider's render handlers");
  if (hooks) members.set("hooks", "the provider's hook subscriptions");
  for (const b of built) {
    claim(b.tool.handlerName, `the handler of ${b.tool.declaration.name}`, b);
    if (b.tool.previewName) claim(b.tool.previewName, `the preview of ${b.tool.declaration.name}`, b);
  }
}

/** A HookPoint member name (`PRE_TOOL_CALL`) as agent.hcl and `defineProvider({ hooks })` name it (`pre-tool-call`). */
function hookPointName(member: string): string {
  return member.toLowerCase().replaceAll("_", "-");
}

/** HookPoint member names as protoc-gen-es spells them; an unknown, unspecified or repeated point is an error. */
function resolveHookPoints(service: DescService, points: readonly HookPoint[], ctx: ProviderContext): string[] {
  const names: string[] = [];
  for (const [index, point] of points.entries()) {
    const name = HookPoint[point];
    const at = ctx.source.position(service, [...providerField("supportedHookPoints"), index]);
    if (point === HookPoint.UNSPECIFIED || name === undefined) {
      ctx.diagnostics.error(
        at,
        service.name,
        `supported_hook_points[${index}] is not a hook point`,
        "name one of the HOOK_POINT_* values other than HOOK_POINT_UNSPECIFIED",
      );
    } else if (names.includes(name)) {
      ctx.diagnostics.error(
        at,
        service.name,
        `supported_hook_points[${index}] repeats HOOK_POINT_${name}`,
        "list each hook point once",
      );
    } else names.push(name);
  }
  return names;
}

/** The config message named by the provider option, looked up as protoc resolves type names. */
function resolveConfig(service: DescService, name: string, ctx: ProviderContext): ConfigModel | undefined {
  const file = service.file;
  const wanted = name.replace(/^\./, "");
  const candidates =
    file.proto.package !== "" && !name.startsWith(".") ? [`${file.proto.package}.${wanted}`, wanted] : [wanted];
  const message = findMessage(file, candidates);
  if (!message) {
    ctx.diagnostics.error(
      ctx.source.position(service, providerField("config")),
      service.name,
      `config names ${JSON.stringify(name)}, which is not a message of this file or its imports`,
      `name a message, e.g. config: "${service.name.replace(/Service$/, "")}Config"`,
    );
    return undefined;
  }
  const shape = ctx.shapes.configMessage(message, service.name);
  if (!shape) return undefined;
  const attributes = configAttributes(shape);
  for (const v of checkConfigAttributeDeclarations(attributes)) {
    if (v.subject.kind !== "config") continue;
    report(v, ctx.source.position(configField(message, v.subject.path) ?? message), service.name, ctx);
  }
  return { messageName: message.typeName, shape, attributes };
}

/** The field a config attribute path names, through nested messages. */
function configField(message: DescMessage, path: readonly string[]): DescField | undefined {
  let field: DescField | undefined;
  let at: DescMessage | undefined = message;
  for (const name of path) {
    field = at?.fields.find((f) => f.name === name);
    at = field?.fieldKind === "message" ? field.message : undefined;
  }
  return field;
}

/** One provider-wide rule's violation, where it is written. */
function report(v: ProviderViolation, at: SourcePosition, scope: string, ctx: ProviderContext): void {
  if (v.severity === "warning") ctx.diagnostics.warning(at, scope, v.message, v.fix, v.rule);
  else ctx.diagnostics.error(at, scope, v.message, v.fix, v.rule);
}

/**
 * The provider-wide rules (written once, in runtime/schema/provider-rules.ts) on the source and the
 * slash commands, reported where each is written; the config's are reported with the config.
 */
function reportProviderRules(service: DescService, options: ProviderOptions | undefined, ctx: ProviderContext): void {
  if (options?.source !== undefined) {
    for (const v of checkSource(options.source))
      report(v, ctx.source.position(service, providerField("source")), service.name, ctx);
  }
  for (const v of checkSlashCommands(options?.slashCommands ?? [])) {
    if (v.subject.kind !== "slash_command") continue;
    const path = [
      ...providerField("slashCommands"),
      v.subject.index,
      fieldNumber(PromptExpansionSpecSchema, v.subject.field),
    ];
    report(v, ctx.source.position(service, path), service.name, ctx);
  }
}

function findMessage(file: DescFile, candidates: readonly string[]): DescMessage | undefined {
  const walk = (messages: readonly DescMessage[], wanted: string): DescMessage | undefined => {
    for (const m of messages) {
      if (m.typeName === wanted) return m;
      const nested = walk(m.nestedMessages, wanted);
      if (nested) return nested;
    }
    return undefined;
  };
  for (const candidate of candidates) {
    for (const f of [file, ...file.dependencies]) {
      const found = walk(f.messages, candidate);
      if (found) return found;
    }
  }
  return undefined;
}
