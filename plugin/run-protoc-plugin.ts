/**
 * The plugin as protoplugin runs it: CodeGeneratorRequest -> model (or diagnostics) -> compiled
 * types -> the two emitters -> CodeGeneratorResponse. Problems in the protos come back in
 * CodeGeneratorResponse.error, every one at once, with no file; warnings go to `warn` (stderr
 * under `runNodeJs`). A bad plugin option throws protoplugin's option error, which `runNodeJs`
 * prints as one line.
 *
 * Each generated proto file gets two modules: `<file>_tool` (emit-api-file.ts) and
 * `<file>_tool_schemas` (emit-schemas-file.ts). With target ts, the TypeScript schemas modules come
 * from a second protoplugin run over the same request and model with `ts_nocheck=true` added, so
 * that protoplugin's own preamble carries the directive (type-checking a provider skips the
 * generated data and checks; bench/RESULTS.md, type-check cost).
 */
import { create, maximumEdition, minimumEdition, protoInt64, type DescFile } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin, type GeneratedFile, type Plugin, type Schema } from "@bufbuild/protoplugin";
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponse_Feature,
  CodeGeneratorResponseSchema,
  type CodeGeneratorRequest,
  type CodeGeneratorResponse,
} from "@bufbuild/protobuf/wkt";
import { compileTypes, type CompiledTypes } from "./emit/compile-types.js";
import { formatDiagnostic, sortDiagnostics } from "./model/diagnostics.js";
import { emitApiFile, targetExtension, type OutputTarget } from "./emit/api-file.js";
import { emitSchemasFile } from "./emit/schemas-file.js";
import { collectTypes, type FileTypes } from "./emit/collect-types.js";
import { parseHarnessToolOptions, type HarnessToolOptions } from "./plugin-options.js";
import { pluginName, pluginVersion } from "./plugin-version.js";
import { buildModel, type FileModel } from "./model/file-model.js";

/** The model of one request, built from the first target protoplugin asks for. */
interface Generation {
  readonly files: readonly FileModel[];
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  /** The types of one file (names are unique per file only), compiled on first use: the js target prints none. */
  types(file: FileModel): { readonly fileTypes: FileTypes; readonly compiled: CompiledTypes };
}

function generation(files: readonly DescFile[]): Generation {
  const model = buildModel(files);
  const sorted = sortDiagnostics(model.diagnostics.all);
  const types = new Map<FileModel, { fileTypes: FileTypes; compiled: CompiledTypes }>();
  return {
    files: model.files,
    errors: sorted.filter((d) => d.severity === "error").map(formatDiagnostic),
    warnings: sorted.filter((d) => d.severity === "warning").map(formatDiagnostic),
    types(file) {
      let found = types.get(file);
      if (!found) {
        const fileTypes = collectTypes(file);
        found = { fileTypes, compiled: compileTypes(fileTypes.requests) };
        types.set(file, found);
      }
      return found;
    },
  };
}

/** Prints the modules of every file of `run` that `schema` is asked for, in `target`. */
type Emit = (schema: Schema<HarnessToolOptions>, target: OutputTarget, run: Generation) => void;

function emitApi(schema: Schema<HarnessToolOptions>, target: OutputTarget, run: Generation, file: FileModel): void {
  const f = schema.generateFile(`${file.outputBase}${targetExtension[target]}`);
  preamble(f, schema, file);
  const { fileTypes, compiled } = target === "js" ? { fileTypes: { requests: [], providers: new Map() }, compiled: new Map() } : run.types(file);
  emitApiFile(f, file, fileTypes, compiled, schema.options, target);
}

function emitSchemas(schema: Schema<HarnessToolOptions>, target: OutputTarget, file: FileModel): void {
  const f = schema.generateFile(`${file.outputBase}_schemas${targetExtension[target]}`);
  preamble(f, schema, file);
  emitSchemasFile(f, file, schema.options, target);
}

/** The first run: every module, except the TypeScript schemas modules. */
const emitModules: Emit = (schema, target, run) => {
  for (const file of run.files) {
    emitApi(schema, target, run, file);
    if (target !== "ts") emitSchemas(schema, target, file);
  }
};

/** The second run, under `ts_nocheck`: the TypeScript schemas modules. */
const emitTsSchemas: Emit = (schema, target, run) => {
  if (target === "ts") for (const file of run.files) emitSchemas(schema, target, file);
};

/** protoplugin's header: the proto file's leading comments, the generator, its parameters. */
function preamble(f: GeneratedFile, schema: Schema<HarnessToolOptions>, file: FileModel): void {
  const desc = schema.files.find((d) => d.proto.name === file.protoFile);
  if (desc) f.preamble(desc);
}

/** What the runs of one request share. */
interface RunState {
  /** Built by the first target that runs. */
  run?: Generation;
  readonly targets: Set<OutputTarget>;
}

/** A protoplugin plugin printing with `emit`; when the model holds errors, it prints nothing. */
function modulePlugin(emit: Emit, state: RunState): Plugin {
  const generate = (schema: Schema<HarnessToolOptions>, target: OutputTarget): void => {
    if (target === "js" && schema.options.jsImportStyle !== "module") {
      throw new Error('invalid option "js_import_style=legacy_commonjs": the harness-tool runtime is an ES module, so the generated code is too');
    }
    state.run ??= generation(schema.files);
    state.targets.add(target);
    if (state.run.errors.length === 0) emit(schema, target, state.run);
  };
  // Each target has its own printer, so protoplugin never runs the TypeScript compiler to
  // transpile one target into another.
  return createEcmaScriptPlugin({
    name: pluginName,
    version: `v${pluginVersion}`,
    parseOptions: parseHarnessToolOptions,
    generateTs: generate,
    generateJs: generate,
    generateDts: generate,
  });
}

function failure(errors: readonly string[]): CodeGeneratorResponse {
  return create(CodeGeneratorResponseSchema, {
    error: errors.join("\n"),
    supportedFeatures: protoInt64.parse(CodeGeneratorResponse_Feature.PROTO3_OPTIONAL | CodeGeneratorResponse_Feature.SUPPORTS_EDITIONS),
    minimumEdition,
    maximumEdition,
  });
}

/** The request with `ts_nocheck=true` added to its parameters (a later key wins in protoplugin). */
function withTsNocheck(request: CodeGeneratorRequest): CodeGeneratorRequest {
  return create(CodeGeneratorRequestSchema, { ...request, parameter: request.parameter === "" ? "ts_nocheck=true" : `${request.parameter},ts_nocheck=true` });
}

/** protoc-gen-harness-tool as a protoplugin Plugin; `warn` receives each warning line. */
export function createHarnessToolPlugin(warn: (line: string) => void): Plugin {
  return {
    name: pluginName,
    version: `v${pluginVersion}`,
    run(request) {
      const state: RunState = { targets: new Set() };
      const first = modulePlugin(emitModules, state).run(request);
      if (!state.run) return first;
      for (const line of state.run.warnings) warn(line);
      if (state.run.errors.length > 0) return failure(state.run.errors);
      if (!state.targets.has("ts")) return first;
      const schemas = new Map(
        modulePlugin(emitTsSchemas, state)
          .run(withTsNocheck(request))
          .file.map((f) => [f.name, f]),
      );
      // Each module followed by its companion, as the other targets list them.
      const file = first.file.flatMap((f) => {
        const companion = f.name.endsWith("_tool.ts") ? schemas.get(f.name.replace(/\.ts$/, "_schemas.ts")) : undefined;
        return companion ? [f, companion] : [f];
      });
      return create(CodeGeneratorResponseSchema, { ...first, file });
    },
  };
}

/** The plugin `runNodeJs` runs (plugin/main.ts): warnings to stderr. */
export const protocGenHarnessTool: Plugin = createHarnessToolPlugin((line) => process.stderr.write(`${line}\n`));

/** What one in-process run produced. */
export interface PluginRun {
  readonly response: CodeGeneratorResponse;
  /** Warning lines (also produced when generation fails). */
  readonly warnings: readonly string[];
  /** The lines of response.error, one per problem. */
  readonly errors: readonly string[];
}

/**
 * Runs the plugin in-process on one request, as `runNodeJs` would, collecting the warnings; a bad
 * plugin option throws protoplugin's option error.
 */
export function runProtocPlugin(request: CodeGeneratorRequest): PluginRun {
  const warnings: string[] = [];
  const response = createHarnessToolPlugin((line) => warnings.push(line)).run(request);
  return { response, warnings, errors: response.error ? response.error.split("\n") : [] };
}
