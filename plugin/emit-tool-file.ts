/**
 * Prints the two modules of one proto file from its model, in each of protoplugin's targets:
 *
 * - `<file>_tool`: per provider the types, per tool its constant, then the handler interface and
 *   the provider factory; it imports and re-exports its companion;
 * - `<file>_tool_schemas`: the tools' JSON Schema constants, their compiled validators and the
 *   config definition, straight-line data and checks.
 *
 * `ts` writes both as TypeScript, the companion marked `// @ts-nocheck` so that type-checking a
 * provider does not pay for it on every build (it is type-checked once, by harness-tool's own
 * tests). `js` writes the code without a type, `dts` the declarations, every type explicit, so an
 * author's compiler reads the declarations and infers nothing. Imports come from protoplugin's
 * symbol tracking, so only what is printed is imported.
 */
import type { GeneratedFile, ImportSymbol, Printable } from "@bufbuild/protoplugin";
import type { CompiledTypes } from "./generated-types.js";
import { printLiteral } from "./emit-literal.js";
import type { FileTypes } from "./emit-types.js";
import { ValidatorWriter, validatorDoc, type Line } from "./emit-validators.js";
import type { HarnessToolOptions } from "./plugin-options.js";
import type { FileModel, ProviderModel, ToolMessageModel, ToolModel } from "./tool-model.js";

/** What one generated file holds: TypeScript, JavaScript, or TypeScript declarations. */
export type OutputTarget = "ts" | "js" | "dts";

/** The file name extension of each target. */
export const targetExtension: { readonly [T in OutputTarget]: string } = { ts: ".ts", js: ".js", dts: ".d.ts" };

/** The runtime symbols a generated file may use, imported on first print. */
interface RuntimeSymbols {
  readonly value: (name: string) => ImportSymbol;
  readonly type: (name: string) => ImportSymbol;
  readonly hookPoint: () => ImportSymbol;
  readonly local: (name: string, from: string, typeOnly: boolean) => ImportSymbol;
}

/** The comment that opens `<file>_tool_schemas.ts`, and its reason. */
export const schemasFileDirective =
  "// @ts-nocheck -- generated data and checks, type-checked by harness-tool's own tests; skipping them here keeps a provider's type-check cheap.";

/** Imports of one generated file, each symbol created once. */
function symbolsOf(f: GeneratedFile, runtime: string): RuntimeSymbols {
  const cache = new Map<string, ImportSymbol>();
  const local = (name: string, from: string, typeOnly: boolean): ImportSymbol => {
    const key = `${typeOnly ? "t" : "v"}:${from}:${name}`;
    let s = cache.get(key);
    if (!s) {
      s = f.import(name, from, typeOnly);
      cache.set(key, s);
    }
    return s;
  };
  return {
    local,
    value: (name) => local(name, runtime, false),
    type: (name) => local(name, runtime, true),
    hookPoint: () => local("HookPoint", `${runtime}/generated/pluggableharness/common/v1/common_pb.js`, false),
  };
}

/** Where the two files of one proto file are, as protoplugin import paths (relative to the output root). */
export interface ToolFilePaths {
  /** e.g. "./acme/fs/v1/fs_tool.js" */
  readonly tool: string;
  /** e.g. "./acme/fs/v1/fs_tool_schemas.js" */
  readonly schemas: string;
}

/** The API file being printed, as the printers of its parts see it. */
interface ApiFile {
  readonly file: GeneratedFile;
  readonly target: OutputTarget;
  readonly symbols: RuntimeSymbols;
  /** A name defined in the schemas file, imported into the API file and re-exported from it. */
  readonly fromSchemas: (name: string) => ImportSymbol;
  readonly runtimeImportPath: string;
}

/** The companion schemas file, as the printers of its parts see it. */
interface DataFile {
  readonly file: GeneratedFile;
  readonly target: OutputTarget;
  readonly symbols: RuntimeSymbols;
  readonly print: (lines: readonly Line[]) => void;
  /** A type of the API file, imported type-only (the two files import each other's types only one way at run time). */
  readonly importFromTool: (name: string) => ImportSymbol;
}

/**
 * Prints `model` into `f` (the API) and `schemasFile` (its schemas, validators and config
 * definition) as `target`, with the compiled types from `types`.
 */
export function emitToolFile(
  f: GeneratedFile,
  schemasFile: GeneratedFile,
  paths: ToolFilePaths,
  model: FileModel,
  fileTypes: FileTypes,
  compiled: CompiledTypes,
  options: HarnessToolOptions,
  target: OutputTarget,
): void {
  const runtime = options.runtimeImportPath;
  const symbols = symbolsOf(f, runtime);
  const dataSymbols = symbolsOf(schemasFile, runtime);
  const validators = new ValidatorWriter(
    {
      typeOfJson: dataSymbols.value("typeOfJson"),
      escapePointer: dataSymbols.value("escapePointer"),
      ValueViolation: dataSymbols.type("ValueViolation"),
    },
    target === "ts",
  );
  const printData = (lines: readonly Line[]): void => {
    // Pieces are strings or the ImportSymbols passed in above.
    for (const line of lines) schemasFile.print(...(line as Printable[]));
  };
  const reexported: string[] = [];
  const api: ApiFile = {
    file: f,
    target,
    symbols,
    fromSchemas: (name) => {
      if (!reexported.includes(name)) reexported.push(name);
      return symbols.local(name, paths.schemas, false);
    },
    runtimeImportPath: runtime,
  };
  const data: DataFile = {
    file: schemasFile,
    target,
    symbols: dataSymbols,
    print: printData,
    importFromTool: (name) => dataSymbols.local(name, paths.tool, true),
  };

  for (const [index, provider] of model.providers.entries()) {
    if (index > 0) f.print();
    if (target !== "js") printTypes(f, provider, fileTypes, compiled);
    for (const tool of provider.tools) {
      printToolData(data, tool, validators);
      printToolSection(api, tool);
      f.print();
    }
    if (provider.config) printConfig(data, provider, validators);
    if (target !== "js") {
      printHandlers(api, provider);
      f.print();
    }
    printFactory(api, provider);
  }
  const checks = target === "dts" ? [] : validators.functions();
  if (checks.length > 0) {
    schemasFile.print("// The checks the validators above run, one per object type.");
    schemasFile.print();
    printData(checks);
  }
  // Every target re-exports the same names (the declarations print none of them elsewhere).
  for (const provider of model.providers) {
    for (const tool of provider.tools) for (const name of [tool.input.schemaConst, tool.output.schemaConst, tool.input.validator, tool.output.validator]) api.fromSchemas(name);
    if (provider.config) api.fromSchemas(provider.names.configConst);
  }
  if (reexported.length > 0) {
    f.print();
    f.print(f.jsDoc(`The tools' JSON Schemas and compiled validators${model.providers.some((p) => p.config) ? " and the config definitions" : ""}, from the companion schemas module.`));
    f.print("export { ", ...reexported.flatMap((name, i) => [...(i > 0 ? [", "] : []), api.fromSchemas(name)]), " };");
  }
}

/** The types of one provider: inputs, outputs, the messages they use, the config. */
function printTypes(f: GeneratedFile, provider: ProviderModel, fileTypes: FileTypes, compiled: CompiledTypes): void {
  for (const entry of fileTypes.providers.get(provider)?.entries ?? []) {
    if (entry.kind === "alias") {
      f.print(f.jsDoc(entry.doc));
      f.print(`export type ${entry.name} = ${entry.target};`);
    } else {
      f.print(compiled.get(entry.name) ?? `export type ${entry.name} = never;`);
    }
    f.print();
  }
  if (!provider.config) {
    f.print(f.jsDoc(`${provider.serviceName} takes no configuration: its agent.hcl block must be empty.`));
    f.print(`export type ${provider.names.config} = Record<string, never>;`);
    f.print();
  }
}

/** One tool's JSON Schema constants and validators, into the schemas file. */
function printToolData(data: DataFile, tool: ToolModel, validators: ValidatorWriter): void {
  const s = data.file;
  const d = tool.declaration;
  s.print(`// ${d.name}`);
  s.print();
  const schemaConst = (io: ToolMessageModel, which: string): void => {
    s.print(s.jsDoc(`The ${which} schema of \`${d.name}\` (common JSON-Schema subset).`));
    const value = io.sameAs ? io.sameAs.schemaConst : printLiteral(io.schema);
    if (data.target === "dts") s.print(`export declare const ${io.schemaConst}: `, data.symbols.type("JsonSchemaObject"), ";");
    else if (data.target === "js") s.print(`export const ${io.schemaConst} = ${value};`);
    else s.print(`export const ${io.schemaConst}: `, data.symbols.type("JsonSchemaObject"), ` = ${value};`);
    s.print();
  };
  schemaConst(tool.input, "input");
  schemaConst(tool.output, "output");
  for (const io of [tool.input, tool.output]) {
    if (data.target === "dts") {
      s.print(validatorDoc(io.schemaConst));
      s.print(`export declare function ${io.validator}(value: unknown): `, data.symbols.type("ValueViolation"), "[];");
    } else {
      data.print(validators.validator(io.validator, io.shape, io.schemaConst));
    }
    s.print();
  }
}

/** `true`/`false` as a type or value literal. */
function literal(flag: boolean): string {
  return flag ? "true" : "false";
}

/** One tool's constant: `toolDefinition` with every type given (the plugin checked the spec). */
function printToolSection(api: ApiFile, tool: ToolModel): void {
  const { file: f, symbols, fromSchemas } = api;
  const d = tool.declaration;
  f.print(`// ${d.name}: ${d.kind}, ${d.risk}`);
  f.print();
  f.print(f.jsDoc(d.description));
  // Exactly the types defineTool would give this spec, stated instead of inferred.
  const typeArguments = [tool.input.typeName, tool.output.typeName, JSON.stringify(d.kind), literal(d.streaming), literal(d.processBacked), literal(d.preview)].join(", ");
  if (api.target === "dts") {
    f.print(`export declare const ${tool.toolConst}: `, symbols.type("ToolDefinition"), `<${typeArguments}>;`);
    return;
  }
  const spec: Printable[][] = [
    [`  name: ${JSON.stringify(d.name)},`],
    [`  kind: ${JSON.stringify(d.kind)},`],
    [`  risk: ${JSON.stringify(d.risk)},`],
    [`  description: ${JSON.stringify(d.description)},`],
    ["  inputSchema: ", fromSchemas(tool.input.schemaConst), ","],
    ["  outputSchema: ", fromSchemas(tool.output.schemaConst), ","],
  ];
  if (d.processBacked) spec.push(["  processBacked: true,"]);
  else if (d.streaming) spec.push(["  streaming: true,"]);
  if (d.concurrency) {
    const keys = d.concurrency.keyFields && d.concurrency.keyFields.length > 0 ? `, keyFields: ${printLiteral(d.concurrency.keyFields)}` : "";
    spec.push([`  concurrency: { safe: ${d.concurrency.safe}${keys} },`]);
  }
  spec.push([`  idempotent: ${d.idempotent === true},`]);
  if (d.defaultTimeoutMs !== undefined) spec.push([`  defaultTimeoutMs: ${formatMs(d.defaultTimeoutMs)},`]);
  if (d.terminatesTurn) spec.push(["  terminatesTurn: true,"]);
  if (d.preview) spec.push(["  preview: true,"]);
  spec.push(["  validators: { input: ", fromSchemas(tool.input.validator), ", output: ", fromSchemas(tool.output.validator), " },"]);
  f.print(`export const ${tool.toolConst} = `, symbols.value("toolDefinition"), api.target === "ts" ? `<${typeArguments}>({` : "({");
  for (const line of spec) f.print(...line);
  f.print("});");
}

function formatMs(ms: number): string {
  return Number.isInteger(ms) && ms >= 10_000 ? ms.toLocaleString("en-US").replace(/,/g, "_") : String(ms);
}

function printConfig(data: DataFile, provider: ProviderModel, validators: ValidatorWriter): void {
  const config = provider.config;
  if (!config) return;
  const s = data.file;
  s.print(s.jsDoc(`The agent.hcl attributes of ${provider.serviceName} (config.v1.ConfigSchema) and the compiled decoder Configure uses.`));
  if (data.target === "dts") {
    s.print(`export declare const ${provider.names.configConst}: `, data.symbols.type("ConfigDefinition"), "<", data.importFromTool(provider.names.config), ">;");
    s.print();
    return;
  }
  const check = validators.checkFunctionOf(config.shape, provider.names.config);
  if (data.target === "ts") {
    const type = data.importFromTool(provider.names.config);
    s.print(`export const ${provider.names.configConst}: `, data.symbols.type("ConfigDefinition"), "<", type, "> = {");
    s.print(`  attributes: ${printLiteral(config.attributes, "  ")},`);
    s.print("  decode(value) {");
    s.print("    const violations: ", data.symbols.type("ValueViolation"), "[] = [];");
    s.print(`    ${check}(value, "", violations);`);
    s.print("    return violations.length === 0 ? { ok: true, value: value as unknown as ", type, " } : { ok: false, violations };");
  } else {
    s.print(`export const ${provider.names.configConst} = {`);
    s.print(`  attributes: ${printLiteral(config.attributes, "  ")},`);
    s.print("  decode(value) {");
    s.print("    const violations = [];");
    s.print(`    ${check}(value, "", violations);`);
    s.print("    return violations.length === 0 ? { ok: true, value } : { ok: false, violations };");
  }
  s.print("  },");
  s.print("};");
  s.print();
}

function contextType(tool: ToolModel): string {
  if (tool.declaration.processBacked) return "ProcessToolContext";
  return tool.declaration.streaming ? "StreamingToolContext" : "ToolContext";
}

function printHandlers(api: ApiFile, provider: ProviderModel): void {
  const { file: f, symbols } = api;
  const config = provider.names.config;
  const intro = `The handlers of ${provider.serviceName}, one method per tool: each takes the tool's typed input and a context shaped by its declaration, and resolves to its typed output.`;
  f.print(f.jsDoc(provider.description ? `${intro}\n\n${provider.description}` : intro));
  f.print(`export interface ${provider.names.handlers} {`);
  for (const [index, tool] of provider.tools.entries()) {
    if (index > 0) f.print();
    f.print(f.jsDoc(tool.declaration.description, "  "));
    f.print(`  ${tool.handlerName}(input: ${tool.input.typeName}, context: `, symbols.type(contextType(tool)), `<${config}>): Promise<${tool.output.typeName}>;`);
    if (tool.previewName) {
      f.print();
      f.print(f.jsDoc(`Describes what \`${tool.declaration.name}\` would do with \`input\`, without doing it (Preview; side-effect-free).`, "  "));
      f.print(`  ${tool.previewName}(input: ${tool.input.typeName}, context: `, symbols.type("PreviewContext"), `<${config}>): Promise<`, symbols.type("RenderTreeInit"), ">;");
    }
  }
  if (provider.render) {
    f.print();
    f.print(f.jsDoc("Render handlers for this provider's emitted payloads, by RenderRequest.schema_version.", "  "));
    f.print("  readonly render: { readonly [schemaVersion: string]: ", symbols.type("RenderHandler"), `<${config}> };`);
  }
  f.print("}");
}

function printFactory(api: ApiFile, provider: ProviderModel): void {
  const { file: f, symbols, fromSchemas, target } = api;
  const { names, identity } = provider;
  const config = names.config;
  const defaultVersion = identity.version ?? "0.0.0";
  if (target !== "js") {
    f.print(f.jsDoc(`Options of ${names.factory}.`));
    f.print(`export interface ${names.options} {`);
    f.print(f.jsDoc(`ProducerRef.version reported by Describe. Default: ${JSON.stringify(defaultVersion)}${identity.version ? " (the provider's version option)" : ""}.`, "  "));
    f.print("  readonly version?: string;");
    f.print(f.jsDoc("The roots `context.resolvePath` allows, from the accepted configuration. Default: any path.", "  "));
    f.print(`  readonly allowedRoots?: (config: ${config}) => readonly string[];`);
    f.print("}");
    f.print();
  }
  f.print(f.jsDoc(`The ${identity.name} provider, ready for \`serve()\`: its tools with their handlers and compiled validators, its configuration and its identity.`));
  if (target === "dts") {
    f.print(`export declare function ${names.factory}(handlers: ${names.handlers}, options?: ${names.options}): `, symbols.type("ProviderDefinition"), `<${config}>;`);
  } else {
    if (target === "ts") {
      f.print(`export function ${names.factory}(handlers: ${names.handlers}, options: ${names.options} = {}): `, symbols.type("ProviderDefinition"), `<${config}> {`);
      f.print("  return ", symbols.value("assembleProvider"), `<${config}>({`);
    } else {
      f.print(`export function ${names.factory}(handlers, options = {}) {`);
      f.print("  return ", symbols.value("assembleProvider"), "({");
    }
    f.print(`    name: ${JSON.stringify(identity.name)},`);
    f.print(`    version: options.version ?? ${JSON.stringify(defaultVersion)},`);
    f.print(`    source: ${JSON.stringify(identity.source)},`);
    if (provider.config) f.print("    config: ", fromSchemas(names.configConst), ",");
    f.print("    tools: [");
    for (const tool of provider.tools) {
      const preview = tool.previewName ? `, (input, context) => handlers.${tool.previewName}(input, context)` : "";
      f.print("      ", symbols.value("toolPart"), `(${tool.toolConst}, (input, context) => handlers.${tool.handlerName}(input, context)${preview}),`);
    }
    f.print("    ],");
    if (provider.slashCommands.length > 0) f.print(`    slashCommands: ${printLiteral(provider.slashCommands, "    ")},`);
    if (provider.hookPoints.length > 0) {
      const points: (string | ImportSymbol)[] = [];
      provider.hookPoints.forEach((p, i) => points.push(...(i > 0 ? [", "] : []), symbols.hookPoint(), `.${p}`));
      f.print("    supportedHookPoints: [", ...points, "],");
    }
    if (provider.render) f.print("    renderers: handlers.render,");
    f.print("    ...(options.allowedRoots ? { allowedRoots: options.allowedRoots } : {}),");
    f.print("  });");
    f.print("}");
  }
  f.print();
  f.print(f.jsDoc(`The tools of ${provider.serviceName} as GetSchema lists them: pluggableharness.tool.v1.ToolSchema, with input_schema and output_schema as schema.v1.Schema. Built on each call, not at import: serve() builds its own GetSchemaResponse, and a provider's start-up should not pay twice.`));
  const toolSchemaType = (): ImportSymbol => symbols.local("ToolSchema", `${api.runtimeImportPath}/generated/pluggableharness/tool/v1/tool_pb.js`, true);
  if (target === "dts") {
    f.print(`export declare function ${names.toolSchemas}(): `, toolSchemaType(), "[];");
    return;
  }
  f.print(`export function ${names.toolSchemas}()`, ...(target === "ts" ? [": ", toolSchemaType(), "[]"] : []), " {");
  // An array of the declarations (all one type), not of the tools (each its own type): a literal of
  // N distinct types costs the compiler O(N^2) to unify, 0.85 s of a 2.2 s check at 500 tools.
  f.print(`  return [${provider.tools.map((t) => `${t.toolConst}.declaration`).join(", ")}].map(`, symbols.value("toolDeclarationToWire"), ");");
  f.print("}");
}
