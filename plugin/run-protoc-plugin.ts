/**
 * The pipeline: CodeGeneratorRequest -> model (or diagnostics) -> compiled types -> protoplugin's
 * emit -> CodeGeneratorResponse. Errors come back in CodeGeneratorResponse.error, every one at
 * once and never as a stack trace; warnings are returned for stderr.
 */
import { create, createFileRegistry, protoInt64, type DescFile } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin, type Schema } from "@bufbuild/protoplugin";
import {
  CodeGeneratorResponse_Feature,
  CodeGeneratorResponseSchema,
  Edition,
  FileDescriptorSetSchema,
  type CodeGeneratorRequest,
  type CodeGeneratorResponse,
} from "@bufbuild/protobuf/wkt";
import { compileTypes } from "./compile-types.js";
import { formatDiagnostic, sortDiagnostics } from "./diagnostics.js";
import { collectTypes, type FileTypes } from "./emit-types.js";
import { emitToolFile, schemasFileDirective, targetExtension, type OutputTarget } from "./emit-tool-file.js";
import { parseHarnessToolOptions, type HarnessToolOptions } from "./plugin-options.js";
import { pluginName, pluginVersion } from "./plugin-version.js";
import { buildModel, type FileModel } from "./tool-model.js";

/** What one run produced. */
export interface PluginRun {
  readonly response: CodeGeneratorResponse;
  /** Warning lines for stderr (also produced when generation fails). */
  readonly warnings: readonly string[];
  /** Error lines (also in response.error), for callers that want them one by one. */
  readonly errors: readonly string[];
}

const features = protoInt64.parse(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL | CodeGeneratorResponse_Feature.SUPPORTS_EDITIONS);

function failure(errors: readonly string[], warnings: readonly string[]): PluginRun {
  const response = create(CodeGeneratorResponseSchema, {
    error: errors.join("\n"),
    supportedFeatures: features,
    minimumEdition: Edition.EDITION_PROTO2,
    maximumEdition: Edition.EDITION_2023,
  });
  return { response, warnings, errors };
}

/** Files to generate, resolved with their source info (as protoplugin does: source descriptors first). */
function filesToGenerate(request: CodeGeneratorRequest): DescFile[] {
  const bySource = new Map(request.sourceFileDescriptors.map((f) => [f.name, f]));
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: request.protoFile.map((f) => bySource.get(f.name) ?? f) }));
  const wanted = new Set(request.fileToGenerate);
  const out: DescFile[] = [];
  for (const file of registry.files) if (wanted.has(file.proto.name)) out.push(file);
  return out;
}

/** Runs the plugin on one request. Never throws: every failure is a response error. */
export async function runProtocPlugin(request: CodeGeneratorRequest): Promise<PluginRun> {
  let warnings: string[] = [];
  try {
    const model = buildModel(filesToGenerate(request));
    const sorted = sortDiagnostics(model.diagnostics.all);
    warnings = sorted.filter((d) => d.severity === "warning").map(formatDiagnostic);
    const errors = sorted.filter((d) => d.severity === "error").map(formatDiagnostic);
    if (errors.length > 0) return failure(errors, warnings);

    const types = new Map<FileModel, FileTypes>(model.files.map((file) => [file, collectTypes(file)]));
    const compiled = await compileTypes([...types.values()].flatMap((t) => t.requests));

    const emit = (schema: Schema<HarnessToolOptions>, target: OutputTarget): void => {
      if (target === "js" && schema.options.jsImportStyle !== "module") {
        throw new Error("js_import_style=legacy_commonjs is not supported: the harness-tool runtime is an ES module");
      }
      const byName = new Map(schema.files.map((f) => [f.proto.name, f]));
      const extension = targetExtension[target];
      for (const file of model.files) {
        const desc = byName.get(file.protoFile);
        const schemasBase = `${file.outputBase}_schemas`;
        const f = schema.generateFile(`${file.outputBase}${extension}`);
        const s = schema.generateFile(`${schemasBase}${extension}`);
        if (desc) {
          f.preamble(desc);
          s.preamble(desc);
        }
        const paths = { tool: `./${file.outputBase}.js`, schemas: `./${schemasBase}.js` };
        emitToolFile(f, s, paths, file, types.get(file) as FileTypes, compiled, schema.options, target);
      }
    };
    // Each target has its own printer, so protoplugin never runs the TypeScript compiler to
    // transpile one target into another.
    const plugin = createEcmaScriptPlugin({
      name: pluginName,
      version: `v${pluginVersion}`,
      parseOptions: parseHarnessToolOptions,
      generateTs: (schema) => emit(schema, "ts"),
      generateJs: (schema) => emit(schema, "js"),
      generateDts: (schema) => emit(schema, "dts"),
    });
    const response = plugin.run(request);
    // A directive counts only before the first statement; protoplugin puts the imports right after
    // its preamble, so the schemas files get theirs inside the preamble, after its last line.
    for (const file of response.file) {
      if (file.name.endsWith("_tool_schemas.ts")) file.content = file.content.replace("/* eslint-disable */\n", `/* eslint-disable */\n${schemasFileDirective}\n`);
    }
    return { response, warnings, errors: [] };
  } catch (error) {
    // Option errors and anything unexpected: one line, no stack trace.
    const message = error instanceof Error ? error.message : String(error);
    return failure([`${pluginName}: ${message}`], warnings);
  }
}
