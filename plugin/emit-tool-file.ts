/**
 * Prints one `<file>_tool.ts` from its model: per provider the types, then per tool its JSON
 * Schema constants, validators and `defineTool` constant, then the config, the handler interface
 * and the provider factory; the private check functions close the file. Imports come from
 * protoplugin's symbol tracking, so only what is printed is imported.
 */
import type { GeneratedFile, ImportSymbol, Printable } from "@bufbuild/protoplugin";
import type { CompiledTypes } from "./generated-types.js";
import { printLiteral } from "./emit-literal.js";
import { collectTypes, type FileTypes } from "./emit-types.js";
import { ValidatorWriter, type Line } from "./emit-validators.js";
import type { HarnessToolOptions } from "./plugin-options.js";
import type { FileModel, ProviderModel, ToolMessageModel, ToolModel } from "./tool-model.js";

/** The runtime symbols a generated file may use, imported on first print. */
interface RuntimeSymbols {
  readonly value: (name: string) => ImportSymbol;
  readonly type: (name: string) => ImportSymbol;
  readonly hookPoint: () => ImportSymbol;
}

/** Prints `model` into `f`, with the compiled types from `types`. */
export function emitToolFile(f: GeneratedFile, model: FileModel, fileTypes: FileTypes, compiled: CompiledTypes, options: HarnessToolOptions): void {
  const runtime = options.runtimeImportPath;
  const cache = new Map<string, ImportSymbol>();
  const symbol = (name: string, from: string, typeOnly: boolean): ImportSymbol => {
    const key = `${typeOnly ? "t" : "v"}:${from}:${name}`;
    let s = cache.get(key);
    if (!s) {
      s = f.import(name, from, typeOnly);
      cache.set(key, s);
    }
    return s;
  };
  const symbols: RuntimeSymbols = {
    value: (name) => symbol(name, runtime, false),
    type: (name) => symbol(name, runtime, true),
    hookPoint: () => symbol("HookPoint", `${runtime}/generated/pluggableharness/common/v1/common_pb.js`, false),
  };
  const validators = new ValidatorWriter({
    typeOfJson: symbols.value("typeOfJson"),
    escapePointer: symbols.value("escapePointer"),
    ValueViolation: symbols.type("ValueViolation"),
  });
  const print = (lines: readonly Line[]): void => {
    // Pieces are strings or the ImportSymbols passed in above.
    for (const line of lines) f.print(...(line as Printable[]));
  };

  for (const [index, provider] of model.providers.entries()) {
    if (index > 0) f.print();
    const entries = fileTypes.providers.get(provider)?.entries ?? [];
    for (const entry of entries) {
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
    for (const tool of provider.tools) {
      printToolSection(f, tool, validators, symbols, print);
      f.print();
    }
    if (provider.config) {
      printConfig(f, provider, validators, symbols);
      f.print();
    }
    printHandlers(f, provider, symbols);
    f.print();
    printFactory(f, provider, symbols);
  }
  const checks = validators.functions();
  if (checks.length > 0) {
    f.print();
    f.print("// The checks the validators above run, one per object type.");
    f.print();
    print(checks);
  }
}

function printToolSection(
  f: GeneratedFile,
  tool: ToolModel,
  validators: ValidatorWriter,
  symbols: RuntimeSymbols,
  print: (lines: readonly Line[]) => void,
): void {
  const d = tool.declaration;
  f.print(`// ${d.name}: ${d.kind}, ${d.risk}`);
  f.print();
  const schemaConst = (io: ToolMessageModel, which: string): void => {
    f.print(f.jsDoc(`The ${which} schema of \`${d.name}\` (common JSON-Schema subset).`));
    if (io.sameAs) f.print(`export const ${io.schemaConst}: `, symbols.type("JsonSchemaObject"), ` = ${io.sameAs.schemaConst};`);
    else f.print(`export const ${io.schemaConst}: `, symbols.type("JsonSchemaObject"), ` = ${printLiteral(io.schema)};`);
    f.print();
  };
  schemaConst(tool.input, "input");
  schemaConst(tool.output, "output");
  print(validators.validator(tool.input.validator, tool.input.shape, tool.input.schemaConst));
  f.print();
  print(validators.validator(tool.output.validator, tool.output.shape, tool.output.schemaConst));
  f.print();

  const spec: string[] = [
    `  name: ${JSON.stringify(d.name)},`,
    `  kind: ${JSON.stringify(d.kind)},`,
    `  risk: ${JSON.stringify(d.risk)},`,
    `  description: ${JSON.stringify(d.description)},`,
    `  inputSchema: ${tool.input.schemaConst},`,
    `  outputSchema: ${tool.output.schemaConst},`,
  ];
  if (d.processBacked) spec.push("  processBacked: true,");
  else if (d.streaming) spec.push("  streaming: true,");
  if (d.concurrency) {
    const keys = d.concurrency.keyFields && d.concurrency.keyFields.length > 0 ? `, keyFields: ${printLiteral(d.concurrency.keyFields)}` : "";
    spec.push(`  concurrency: { safe: ${d.concurrency.safe}${keys} },`);
  }
  spec.push(`  idempotent: ${d.idempotent === true},`);
  if (d.defaultTimeoutMs !== undefined) spec.push(`  defaultTimeoutMs: ${formatMs(d.defaultTimeoutMs)},`);
  if (d.terminatesTurn) spec.push("  terminatesTurn: true,");
  if (d.preview) spec.push("  preview: true,");
  spec.push(`  validators: { input: ${tool.input.validator}, output: ${tool.output.validator} },`);
  f.print(f.jsDoc(d.description));
  f.print(`export const ${tool.toolConst} = `, symbols.value("defineTool"), `<${tool.input.typeName}, ${tool.output.typeName}>()({`);
  for (const line of spec) f.print(line);
  f.print("});");
}

function formatMs(ms: number): string {
  return Number.isInteger(ms) && ms >= 10_000 ? ms.toLocaleString("en-US").replace(/,/g, "_") : String(ms);
}

function printConfig(f: GeneratedFile, provider: ProviderModel, validators: ValidatorWriter, symbols: RuntimeSymbols): void {
  const config = provider.config;
  if (!config) return;
  const type = provider.names.config;
  const check = validators.checkFunctionOf(config.shape, type);
  f.print(f.jsDoc(`The agent.hcl attributes of ${provider.serviceName} (config.v1.ConfigSchema) and the compiled decoder Configure uses.`));
  f.print(`export const ${provider.names.configConst}: `, symbols.type("ConfigDefinition"), `<${type}> = {`);
  f.print(`  attributes: ${printLiteral(config.attributes, "  ")},`);
  f.print("  decode(value) {");
  f.print("    const violations: ", symbols.type("ValueViolation"), "[] = [];");
  f.print(`    ${check}(value, "", violations);`);
  f.print(`    return violations.length === 0 ? { ok: true, value: value as unknown as ${type} } : { ok: false, violations };`);
  f.print("  },");
  f.print("};");
}

function contextType(tool: ToolModel): string {
  if (tool.declaration.processBacked) return "ProcessToolContext";
  return tool.declaration.streaming ? "StreamingToolContext" : "ToolContext";
}

function printHandlers(f: GeneratedFile, provider: ProviderModel, symbols: RuntimeSymbols): void {
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

function printFactory(f: GeneratedFile, provider: ProviderModel, symbols: RuntimeSymbols): void {
  const { names, identity } = provider;
  const config = names.config;
  const defaultVersion = identity.version ?? "0.0.0";
  f.print(f.jsDoc(`Options of ${names.factory}.`));
  f.print(`export interface ${names.options} {`);
  f.print(f.jsDoc(`ProducerRef.version reported by Describe. Default: ${JSON.stringify(defaultVersion)}${identity.version ? " (the provider's version option)" : ""}.`, "  "));
  f.print("  readonly version?: string;");
  f.print(f.jsDoc("The roots `context.resolvePath` allows, from the accepted configuration. Default: any path.", "  "));
  f.print(`  readonly allowedRoots?: (config: ${config}) => readonly string[];`);
  f.print("}");
  f.print();
  f.print(f.jsDoc(`The ${identity.name} provider, ready for \`serve()\`: its tools with their handlers and compiled validators, its configuration and its identity.`));
  f.print(`export function ${names.factory}(handlers: ${names.handlers}, options: ${names.options} = {}): `, symbols.type("ProviderDefinition"), `<${config}> {`);
  f.print("  return ", symbols.value("assembleProvider"), `<${config}>({`);
  f.print(`    name: ${JSON.stringify(identity.name)},`);
  f.print(`    version: options.version ?? ${JSON.stringify(defaultVersion)},`);
  f.print(`    source: ${JSON.stringify(identity.source)},`);
  if (provider.config) f.print(`    config: ${names.configConst},`);
  f.print("    tools: [");
  for (const tool of provider.tools) {
    const preview = tool.previewName ? `, preview: handlers.${tool.previewName}.bind(handlers)` : "";
    f.print(`      { tool: ${tool.toolConst}, handler: handlers.${tool.handlerName}.bind(handlers)${preview} },`);
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
  f.print();
  f.print(f.jsDoc(`The tools of ${provider.serviceName} as GetSchema lists them: pluggableharness.tool.v1.ToolSchema, with input_schema and output_schema as schema.v1.Schema.`));
  f.print(`export const ${names.toolSchemas} = [${provider.tools.map((t) => t.toolConst).join(", ")}].map((tool) => `, symbols.value("toolDeclarationToWire"), "(tool.declaration));");
}
