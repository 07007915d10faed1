/**
 * Prints `<file>_tool`, the module a provider author imports: per provider the types (inputs,
 * outputs, the messages they use, the config), per tool its constant, then the handler interface
 * and the provider factory; it imports and re-exports the schemas and validators of its companion
 * `<file>_tool_schemas` (schemas-file.ts). Every declaration's JSDoc ends with `@generated from`
 * the proto element it comes from.
 *
 * `ts` writes TypeScript; `js` the code without a type; `dts` the declarations, every type
 * explicit, so an author's compiler reads the declarations and infers nothing. Every declaration
 * goes through `f.export` and every import through `f.import`, so protoplugin imports only what is
 * printed and aliases an import whose name the file declares (a message named `ToolContext`).
 */
import type { GeneratedFile, ImportSymbol, Printable } from "@bufbuild/protoplugin";
import { docText, generatedFrom } from "./doc-text.js";
import { printLiteral } from "./print-literal.js";
import type { FileTypes } from "./collect-types.js";
import type { HarnessToolOptions } from "../model/plugin-options.js";
import type { OutputTarget } from "./output-target.js";
import type { Declarations } from "./compiled-types.js";
import type { FileModel } from "../model/file-model.js";
import type { ProviderModel } from "../model/provider-model.js";
import type { ToolModel } from "../model/tool-model.js";

/** The API file being printed, as the printers of its parts see it. */
interface ApiFile {
  readonly f: GeneratedFile;
  readonly target: OutputTarget;
  /** A value (or, `typeOnly`, a type) of the runtime package. */
  readonly runtime: (name: string, typeOnly?: boolean) => ImportSymbol;
  /** A value of the runtime's schema rules (`harness-tool/schema`). */
  readonly schema: (name: string) => ImportSymbol;
  /** A type of the runtime's generated protobuf code, e.g. `pluggableharness/tool/v1/tool_pb.js`. */
  readonly runtimeGenerated: (name: string, file: string, typeOnly: boolean) => ImportSymbol;
  /** A name the companion schemas module declares. */
  readonly fromSchemas: (name: string) => ImportSymbol;
}

/**
 * Prints the API module of `model` into `f` as `target`, with the types of `fileTypes`, each declared
 * type as a placeholder of `declarations` (compiled-types.ts).
 */
export function emitApiFile(
  f: GeneratedFile,
  model: FileModel,
  fileTypes: FileTypes,
  declarations: Declarations,
  options: HarnessToolOptions,
  target: OutputTarget,
): void {
  const runtime = options.runtimeImportPath;
  const schemasModule = `./${model.outputBase}_schemas.js`;
  const api: ApiFile = {
    f,
    target,
    runtime: (name, typeOnly = false) => f.import(name, runtime, typeOnly),
    schema: (name) => f.import(name, `${runtime}/schema`),
    runtimeGenerated: (name, file, typeOnly) => f.import(name, `${runtime}/generated/${file}`, typeOnly),
    fromSchemas: (name) => f.import(name, schemasModule),
  };
  for (const [index, provider] of model.providers.entries()) {
    if (index > 0) f.print();
    if (target !== "js") printTypes(f, provider, fileTypes, declarations);
    for (const tool of provider.tools) {
      printToolConstant(api, tool);
      f.print();
    }
    if (target !== "js") {
      printHandlers(api, provider);
      f.print();
    }
    printFactory(api, provider);
  }
  printReexports(api, model);
}

/**
 * Re-exports the schema constants, validators and config definitions of the companion module.
 * Their names come from the file's one namespace (model/file-model.ts), so protoplugin never aliases them.
 */
function printReexports(api: ApiFile, model: FileModel): void {
  const names: string[] = [];
  for (const provider of model.providers) {
    for (const tool of provider.tools)
      names.push(tool.input.schemaConst, tool.output.schemaConst, tool.input.validator, tool.output.validator);
    if (provider.config) names.push(provider.names.configConst);
  }
  if (names.length === 0) return;
  const { f } = api;
  f.print();
  const config = model.providers.some((p) => p.config) ? ", and the configuration's definition" : "";
  f.print(f.jsDoc(`The tools' JSON Schemas and validators${config}.`));
  f.print("export { ", ...names.flatMap((name, i) => [...(i > 0 ? [", "] : []), api.fromSchemas(name)]), " };");
}

/** The types of one provider: inputs, outputs, the messages they use, the config. */
function printTypes(f: GeneratedFile, provider: ProviderModel, fileTypes: FileTypes, declarations: Declarations): void {
  for (const entry of fileTypes.get(provider) ?? []) {
    if (entry.kind === "alias") {
      f.print(f.jsDoc(docText(entry.doc)));
      f.print(f.export("type", entry.name), ` = ${entry.target};`);
    } else {
      declarations.print(f, entry);
    }
    f.print();
  }
  if (!provider.config) {
    f.print(f.jsDoc(`${provider.serviceName} takes no configuration: its agent.hcl block must be empty.`));
    f.print(f.export("type", provider.names.config), " = Record<string, never>;");
    f.print();
  }
}

/**
 * The traits a tool's handler types depend on, as the object type the explicit `defineTool` and
 * `ToolDefinitionOf` take: exactly what defineTool would infer from the spec, stated by name.
 */
function traitsType(tool: ToolModel): string {
  const d = tool.declaration;
  return `{ kind: ${JSON.stringify(d.kind)}; streaming: ${d.streaming}; processBacked: ${d.processBacked}; preview: ${d.preview} }`;
}

/** `<Input, Output, Traits>`, on one line when it fits, else one argument per line. */
function typeArguments(tool: ToolModel, lineStart: number): string {
  const args = [tool.input.typeName, tool.output.typeName, traitsType(tool)];
  const oneLine = `<${args.join(", ")}>`;
  return lineStart + oneLine.length <= 120 ? oneLine : `<\n  ${args.join(",\n  ")}\n>`;
}

/** One tool's constant: `defineTool` with every type given (the plugin checked the spec). */
function printToolConstant(api: ApiFile, tool: ToolModel): void {
  const { f, fromSchemas } = api;
  const d = tool.declaration;
  f.print(f.jsDoc(docText(d.description, generatedFrom({ kind: "rpc", name: tool.protoName }))));
  if (api.target === "dts") {
    const head = `export declare const ${tool.toolConst}: ToolDefinitionOf`;
    f.print(
      f.export("declare const", tool.toolConst),
      ": ",
      api.runtime("ToolDefinitionOf", true),
      `${typeArguments(tool, head.length)};`,
    );
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
    const keys =
      d.concurrency.keyFields && d.concurrency.keyFields.length > 0
        ? [", keyFields: ", ...printLiteral(f, d.concurrency.keyFields)]
        : [];
    spec.push([`  concurrency: { safe: ${d.concurrency.safe}`, ...keys, " },"]);
  }
  spec.push([`  idempotent: ${d.idempotent === true},`]);
  if (d.defaultTimeoutMs !== undefined) spec.push([`  defaultTimeoutMs: ${formatMs(d.defaultTimeoutMs)},`]);
  if (d.terminatesTurn) spec.push(["  terminatesTurn: true,"]);
  if (d.preview) spec.push(["  preview: true,"]);
  spec.push([
    "  validators: { input: ",
    fromSchemas(tool.input.validator),
    ", output: ",
    fromSchemas(tool.output.validator),
    " },",
  ]);
  const head = `export const ${tool.toolConst} = defineTool`;
  f.print(
    f.export("const", tool.toolConst),
    " = ",
    api.runtime("defineTool"),
    api.target === "ts" ? `${typeArguments(tool, head.length)}()({` : "()({",
  );
  for (const line of spec) f.print(...line);
  f.print("});");
}

function formatMs(ms: number): string {
  return Number.isInteger(ms) && ms >= 10_000 ? ms.toLocaleString("en-US").replace(/,/g, "_") : String(ms);
}

function contextType(tool: ToolModel): string {
  if (tool.declaration.processBacked) return "ProcessToolContext";
  return tool.declaration.streaming ? "StreamingToolContext" : "ToolContext";
}

function printHandlers(api: ApiFile, provider: ProviderModel): void {
  const { f } = api;
  const config = provider.names.config;
  const intro = `The handlers of ${provider.serviceName}: one method per tool, from its input to its output.`;
  f.print(f.jsDoc(docText(intro, provider.description, generatedFrom({ kind: "service", name: provider.protoName }))));
  f.print(f.export("interface", provider.names.handlers), " {");
  for (const [index, tool] of provider.tools.entries()) {
    if (index > 0) f.print();
    f.print(f.jsDoc(docText(tool.declaration.description, generatedFrom({ kind: "rpc", name: tool.protoName })), "  "));
    f.print(
      `  ${tool.handlerName}(input: ${tool.input.typeName}, context: `,
      api.runtime(contextType(tool), true),
      `<${config}>): Promise<${tool.output.typeName}>;`,
    );
    if (tool.previewName) {
      f.print();
      f.print(
        f.jsDoc(
          `Describes what \`${tool.declaration.name}\` would do with \`input\`, without doing it (Preview; side-effect-free).`,
          "  ",
        ),
      );
      f.print(
        `  ${tool.previewName}(input: ${tool.input.typeName}, context: `,
        api.runtime("PreviewContext", true),
        `<${config}>): Promise<`,
        api.runtime("RenderTreeInit", true),
        ">;",
      );
    }
  }
  if (provider.render) {
    f.print();
    f.print(f.jsDoc("Render handlers for this provider's emitted payloads, by RenderRequest.schema_version.", "  "));
    f.print(
      "  readonly render: { readonly [schemaVersion: string]: ",
      api.runtime("RenderHandler", true),
      `<${config}> };`,
    );
  }
  if (provider.hookPoints.length > 0) {
    const points = provider.hookPointNames.map((p) => JSON.stringify(p)).join(" | ");
    f.print();
    f.print(
      f.jsDoc(
        "The hook subscriptions of the points supported_hook_points lists: per point, its modes and handlers.",
        "  ",
      ),
    );
    f.print("  readonly hooks: ", api.runtime("HookSubscriptionsFor", true), `<${points}, ${config}>;`);
  }
  f.print("}");
}

function printFactory(api: ApiFile, provider: ProviderModel): void {
  const { f, target } = api;
  const { names, identity } = provider;
  const config = names.config;
  const defaultVersion = identity.version ?? "0.0.0";
  if (target !== "js") {
    f.print(f.jsDoc(`Options of ${names.factory}.`));
    f.print(f.export("interface", names.options), " {");
    f.print(
      f.jsDoc(
        `The version Describe reports. Default: ${JSON.stringify(defaultVersion)}${identity.version ? " (the provider's version option)" : ""}.`,
        "  ",
      ),
    );
    f.print("  readonly version?: string;");
    f.print(
      f.jsDoc("The roots `context.resolvePath` allows, from the accepted configuration. Default: any path.", "  "),
    );
    f.print(`  readonly allowedRoots?: (config: ${config}) => readonly string[];`);
    f.print(
      f.jsDoc(
        "Checks each decoded configuration at Configure, before any Invoke sees it: return to accept, throw\n`configError(attribute, message)` or a ToolError to refuse. Bounded by the Configure call's deadline;\na refused Configure keeps the configuration in force before it.",
        "  ",
      ),
    );
    f.print("  readonly configure?: ", api.runtime("ConfigureHook", true), `<${config}>;`);
    f.print("}");
    f.print();
  }
  f.print(
    f.jsDoc(
      docText(
        `The ${identity.name} provider, ready for \`serve()\`: its tools with your handlers, its configuration and its identity.`,
        generatedFrom({ kind: "service", name: provider.protoName }),
      ),
    ),
  );
  const providerDefinition = api.runtime("ProviderDefinition", true);
  if (target === "dts") {
    f.print(
      f.export("declare function", names.factory),
      `(handlers: ${names.handlers}, options?: ${names.options}): `,
      providerDefinition,
      `<${config}>;`,
    );
  } else {
    printFactoryBody(api, provider);
  }
  f.print();
  f.print(
    f.jsDoc(
      `The tools of ${provider.serviceName} as GetSchema lists them (pluggableharness.tool.v1.ToolSchema), built on each call.`,
    ),
  );
  const toolSchema = api.runtimeGenerated("ToolSchema", "pluggableharness/tool/v1/tool_pb.js", true);
  if (target === "dts") {
    f.print(f.export("declare function", names.toolSchemas), "(): ", toolSchema, "[];");
    return;
  }
  f.print(f.export("function", names.toolSchemas), "()", ...(target === "ts" ? [": ", toolSchema, "[]"] : []), " {");
  // An array of the declarations (all one type), not of the tools (each its own type): a literal of
  // N distinct types costs the compiler O(N^2) to unify, 0.85 s of a 2.2 s check at 500 tools.
  f.print(
    `  return [${provider.tools.map((t) => `${t.toolConst}.declaration`).join(", ")}].map(`,
    api.schema("toolDeclarationToWire"),
    ");",
  );
  f.print("}");
}

/**
 * The factory's body: `defineProvider<Config>()(spec, handlers, previews)`, the form whose types are
 * given (the handler interface and the tools come from one model), with the tools keyed by their
 * handlers' names; the handlers object goes in whole (defineProvider calls each method with it as
 * `this`), each preview under its tool's key.
 */
function printFactoryBody(api: ApiFile, provider: ProviderModel): void {
  const { f, fromSchemas, target } = api;
  const { names, identity } = provider;
  if (target === "ts") {
    const definition = api.runtime("ProviderDefinition", true);
    f.print(
      f.export("function", names.factory),
      `(handlers: ${names.handlers}, options: ${names.options} = {}): `,
      definition,
      `<${names.config}> {`,
    );
  } else {
    f.print(f.export("function", names.factory), "(handlers, options = {}) {");
  }
  f.print("  return ", api.runtime("defineProvider"), target === "ts" ? `<${names.config}>()(` : "()(");
  f.print("    {");
  f.print(`      name: ${JSON.stringify(identity.name)},`);
  f.print(`      version: options.version ?? ${JSON.stringify(identity.version ?? "0.0.0")},`);
  f.print(`      source: ${JSON.stringify(identity.source)},`);
  if (provider.config) f.print("      config: ", fromSchemas(names.configConst), ",");
  if (provider.tools.length === 0) f.print("      tools: {},");
  else {
    f.print("      tools: {");
    for (const t of provider.tools) f.print(`        ${t.handlerName}: ${t.toolConst},`);
    f.print("      },");
  }
  if (provider.slashCommands.length > 0)
    f.print("      slashCommands: ", ...printLiteral(f, provider.slashCommands, "      "), ",");
  if (provider.hookPoints.length > 0) {
    const hookPoint = api.runtimeGenerated("HookPoint", "pluggableharness/common/v1/common_pb.js", false);
    f.print(
      "      supportedHookPoints: [",
      ...provider.hookPoints.flatMap((p, i) => [...(i > 0 ? [", "] : []), hookPoint, `.${p}`]),
      "],",
    );
    f.print("      hooks: handlers.hooks,");
  }
  if (provider.render) f.print("      renderers: handlers.render,");
  f.print("      ...(options.allowedRoots ? { allowedRoots: options.allowedRoots } : {}),");
  f.print("      ...(options.configure ? { configure: options.configure } : {}),");
  f.print("    },");
  f.print("    handlers,");
  const previews = provider.tools.filter((t) => t.previewName);
  if (previews.length > 0) {
    f.print("    {");
    for (const t of previews)
      f.print(`      ${t.handlerName}: (input, context) => handlers.${t.previewName}(input, context),`);
    f.print("    },");
  }
  f.print("  );");
  f.print("}");
}
