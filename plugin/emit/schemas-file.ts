/**
 * Prints `<file>_tool_schemas`, the companion of `<file>_tool` (api-file.ts): each tool's JSON
 * Schema constants and validators (compiled at load by the runtime's `validatorFor`), and each
 * provider's config definition. Straight-line data; the TypeScript module opens
 * with `// @ts-nocheck` (run-protoc-plugin.ts) so that type-checking a provider does not pay for
 * them on every build; harness-tool's own tests type-check them once
 * (test/plugin/schemas-typecheck.test.ts).
 */
import type { GeneratedFile, ImportSymbol } from "@bufbuild/protoplugin";
import { docText, generatedFrom } from "./doc-text.js";
import { printLiteral } from "./print-literal.js";
import type { OutputTarget } from "./output-target.js";
import { ValidatorWriter, validatorDoc } from "./validators.js";
import type { HarnessToolOptions } from "../model/plugin-options.js";
import type { FileModel } from "../model/file-model.js";
import type { ProviderModel } from "../model/provider-model.js";
import type { ToolMessageModel, ToolModel } from "../model/tool-model.js";

/** The schemas file being printed, as the printers of its parts see it. */
interface DataFile {
  readonly f: GeneratedFile;
  readonly target: OutputTarget;
  /** A value (or, `typeOnly`, a type) of the runtime package. */
  readonly runtime: (name: string, typeOnly?: boolean) => ImportSymbol;
  /** A value (or, `typeOnly`, a type) of the runtime's schema rules (`harness-tool/schema`). */
  readonly schema: (name: string, typeOnly?: boolean) => ImportSymbol;
  /** A type of the API module (imported type-only: at run time only the API module imports this one). */
  readonly fromApi: (name: string) => ImportSymbol;
  readonly validators: ValidatorWriter;
}

/** Prints the schemas module of `model` into `f` as `target`. */
export function emitSchemasFile(
  f: GeneratedFile,
  model: FileModel,
  options: HarnessToolOptions,
  target: OutputTarget,
): void {
  const runtime = (name: string, typeOnly = false): ImportSymbol => f.import(name, options.runtimeImportPath, typeOnly);
  const schema = (name: string, typeOnly = false): ImportSymbol =>
    f.import(name, `${options.runtimeImportPath}/schema`, typeOnly);
  const validators = new ValidatorWriter(f, schema("validatorFor"), model.declaredNames);
  const data: DataFile = {
    f,
    target,
    runtime,
    schema,
    fromApi: (name) => f.import(name, `./${model.outputBase}.js`, true),
    validators,
  };
  for (const provider of model.providers) {
    for (const tool of provider.tools) printToolData(data, tool);
    if (provider.config) printConfig(data, provider);
  }
}

/** One tool's JSON Schema constants and validators. */
function printToolData(data: DataFile, tool: ToolModel): void {
  const { f } = data;
  const d = tool.declaration;
  f.print(`// ${d.name}`);
  f.print();
  const schemaConst = (io: ToolMessageModel, which: string): void => {
    f.print(
      f.jsDoc(
        docText(
          `The JSON Schema of the ${which} of \`${d.name}\`.`,
          generatedFrom({ kind: "message", name: io.shape.messageName }),
        ),
      ),
    );
    const value = io.sameAs ? [io.sameAs.schemaConst] : printLiteral(f, io.schema);
    if (data.target === "dts")
      f.print(f.export("declare const", io.schemaConst), ": ", data.schema("JsonSchemaObject", true), ";");
    else if (data.target === "js") f.print(f.export("const", io.schemaConst), " = ", ...value, ";");
    else f.print(f.export("const", io.schemaConst), ": ", data.schema("JsonSchemaObject", true), " = ", ...value, ";");
    f.print();
  };
  schemaConst(tool.input, "input");
  schemaConst(tool.output, "output");
  for (const io of [tool.input, tool.output]) {
    f.print(f.jsDoc(docText(validatorDoc(io.schemaConst))));
    if (data.target === "dts") {
      f.print(f.export("declare const", io.validator), ": ", data.schema("ValueValidator", true), ";");
    } else {
      data.validators.printValidator(f.export("const", io.validator), io.validator, io.shape, io.schemaConst);
    }
    f.print();
  }
}

/** The config definition: agent.hcl attributes and the compiled decoder Configure uses. */
function printConfig(data: DataFile, provider: ProviderModel): void {
  const config = provider.config;
  if (!config) return;
  const { f } = data;
  const name = provider.names.configConst;
  // The decoder's validator, a module constant printed before the definition's comment.
  const check = data.target === "dts" ? "" : data.validators.privateValidator(config.shape, provider.names.config);
  f.print(
    f.jsDoc(
      docText(
        `The agent.hcl attributes of ${provider.serviceName}, and the decoder that checks a configuration against them.`,
        generatedFrom({ kind: "message", name: config.messageName }),
      ),
    ),
  );
  if (data.target === "dts") {
    f.print(
      f.export("declare const", name),
      ": ",
      data.runtime("ConfigDefinition", true),
      "<",
      data.fromApi(provider.names.config),
      ">;",
    );
    f.print();
    return;
  }
  if (data.target === "ts") {
    const type = data.fromApi(provider.names.config);
    f.print(f.export("const", name), ": ", data.runtime("ConfigDefinition", true), "<", type, "> = {");
    f.print("  attributes: ", ...printLiteral(f, config.attributes, "  "), ",");
    f.print("  decode(value) {");
    f.print(`    const violations = ${check}(value);`);
    f.print(
      "    return violations.length === 0 ? { ok: true, value: value as unknown as ",
      type,
      " } : { ok: false, violations };",
    );
  } else {
    f.print(f.export("const", name), " = {");
    f.print("  attributes: ", ...printLiteral(f, config.attributes, "  "), ",");
    f.print("  decode(value) {");
    f.print(`    const violations = ${check}(value);`);
    f.print("    return violations.length === 0 ? { ok: true, value } : { ok: false, violations };");
  }
  f.print("  },");
  f.print("};");
  f.print();
}
