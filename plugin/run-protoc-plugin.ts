/**
 * The plugin, in one run: CodeGeneratorRequest -> model (or diagnostics) -> the emitters of each
 * target (protoplugin's, synchronous) -> the declared types compiled and filled in ->
 * CodeGeneratorResponse. Problems in the protos come back in CodeGeneratorResponse.error, every
 * one at once, with no file; warnings go to `warn` (stderr under plugin/main.ts). A bad plugin
 * option throws protoplugin's option error, which main.ts prints as one line.
 *
 * Each generated proto file gets two modules: `<file>_tool` (emit/api-file.ts) and
 * `<file>_tool_schemas` (emit/schemas-file.ts). A TypeScript schemas module opens with
 * `// @ts-nocheck` under protoplugin's header (type-checking a provider skips the generated data
 * and checks; docs/plugin.md, targets).
 */
import { create, maximumEdition, minimumEdition, protoInt64, type DescFile } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin, type GeneratedFile, type Schema } from "@bufbuild/protoplugin";
import {
  CodeGeneratorResponse_Feature,
  CodeGeneratorResponseSchema,
  type CodeGeneratorRequest,
  type CodeGeneratorResponse,
} from "@bufbuild/protobuf/wkt";
import { emitApiFile } from "./emit/api-file.js";
import { collectTypes, type FileTypes } from "./emit/collect-types.js";
import { Declarations } from "./emit/compiled-types.js";
import { targetExtension, type OutputTarget } from "./emit/output-target.js";
import { emitSchemasFile } from "./emit/schemas-file.js";
import { formatDiagnostic, sortDiagnostics } from "./model/diagnostics.js";
import { buildModel, type FileModel } from "./model/file-model.js";
import { sourcePathsFrom } from "./model/source-paths.js";
import { parseHarnessToolOptions, type HarnessToolOptions } from "./model/plugin-options.js";
import { pluginName, pluginVersion } from "./plugin-version.js";

/** The model of one request, built when protoplugin asks for the first target. */
interface Generation {
  readonly files: readonly FileModel[];
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  /** The TypeScript schemas modules printed, which open with `// @ts-nocheck`. */
  readonly noCheck: Set<string>;
  /** The types of one file (names are unique per file only), collected on first use: the js target prints none. */
  types(file: FileModel): FileTypes;
}

function generation(files: readonly DescFile[], sourcePath: (file: string) => string): Generation {
  const model = buildModel(files);
  const sorted = sortDiagnostics(model.diagnostics.all).map((d) => ({ ...d, file: sourcePath(d.file) }));
  const types = new Map<FileModel, FileTypes>();
  return {
    files: model.files,
    errors: sorted.filter((d) => d.severity === "error").map(formatDiagnostic),
    warnings: sorted.filter((d) => d.severity === "warning").map(formatDiagnostic),
    noCheck: new Set(),
    types(file) {
      let found = types.get(file);
      if (!found) {
        found = collectTypes(file);
        types.set(file, found);
      }
      return found;
    },
  };
}

/** Prints both modules of every file of `run` in `target`, the declared types as placeholders of `declarations`. */
function emitModules(
  schema: Schema<HarnessToolOptions>,
  target: OutputTarget,
  run: Generation,
  declarations: Declarations,
): void {
  for (const file of run.files) {
    const api = schema.generateFile(`${file.outputBase}${targetExtension[target]}`);
    preamble(api, schema, file);
    emitApiFile(api, file, target === "js" ? new Map() : run.types(file), declarations, schema.options, target);
    const schemasName = `${file.outputBase}_schemas${targetExtension[target]}`;
    if (target === "ts") run.noCheck.add(schemasName);
    const schemas = schema.generateFile(schemasName);
    preamble(schemas, schema, file);
    emitSchemasFile(schemas, file, schema.options, target);
  }
}

/** protoplugin's header: the proto file's leading comments, the generator, its parameters. */
function preamble(f: GeneratedFile, schema: Schema<HarnessToolOptions>, file: FileModel): void {
  const desc = schema.files.find((d) => d.proto.name === file.protoFile);
  if (desc) f.preamble(desc);
}

function failure(errors: readonly string[]): CodeGeneratorResponse {
  return create(CodeGeneratorResponseSchema, {
    error: errors.join("\n"),
    supportedFeatures: protoInt64.parse(
      CodeGeneratorResponse_Feature.PROTO3_OPTIONAL | CodeGeneratorResponse_Feature.SUPPORTS_EDITIONS,
    ),
    minimumEdition,
    maximumEdition,
  });
}

/** `response` with the content of each file passed through `rewrite`. */
function withContents(response: CodeGeneratorResponse, rewrite: (content: string) => string): CodeGeneratorResponse {
  return create(CodeGeneratorResponseSchema, {
    ...response,
    file: response.file.map((f) => ({ ...f, content: rewrite(f.content) })),
  });
}

const headerEnd = "/* eslint-disable */\n";
const noCheck = "// @ts-nocheck\n";

/**
 * `// @ts-nocheck` added under the header of each of the `names` (the last line of protoplugin's
 * header, where its own `ts_nocheck` option puts it, since the directive only counts before the
 * first statement); a module that has it already, by that option, is left as it is.
 */
export function withNoCheck(response: CodeGeneratorResponse, names: ReadonlySet<string>): CodeGeneratorResponse {
  const file = response.file.map((f) => {
    if (!names.has(f.name) || f.content.includes(`${headerEnd}${noCheck}`)) return f;
    const at = f.content.indexOf(headerEnd);
    if (at < 0) return f;
    const end = at + headerEnd.length;
    return { ...f, content: `${f.content.slice(0, end)}${noCheck}${f.content.slice(end)}` };
  });
  return create(CodeGeneratorResponseSchema, { ...response, file });
}

/**
 * protoc-gen-harness-tool: protoplugin's Plugin, but with an asynchronous `run` (the types come from
 * json-schema-to-typescript's asynchronous `compile()`, emit/compiled-types.ts).
 */
export interface HarnessToolPlugin {
  readonly name: string;
  readonly version: string;
  run(request: CodeGeneratorRequest): Promise<CodeGeneratorResponse>;
}

/**
 * protoc-gen-harness-tool; `warn` receives each warning line, and `sourcePath` turns a proto
 * file's name in its module into the path its diagnostics name (model/source-paths.ts; by default
 * the module name). protoplugin prints the modules synchronously, the declared types as
 * placeholders, then the run awaits their declarations.
 */
export function createHarnessToolPlugin(
  warn: (line: string) => void,
  sourcePath: (file: string) => string = (file) => file,
): HarnessToolPlugin {
  return {
    name: pluginName,
    version: `v${pluginVersion}`,
    async run(request) {
      let run: Generation | undefined;
      const declarations = new Declarations();
      const generate = (schema: Schema<HarnessToolOptions>, target: OutputTarget): void => {
        if (target === "js" && schema.options.jsImportStyle !== "module") {
          throw new Error(
            'invalid option "js_import_style=legacy_commonjs": the harness-tool runtime is an ES module, so the generated code is too',
          );
        }
        run ??= generation(schema.files, sourcePath);
        if (run.errors.length === 0) emitModules(schema, target, run, declarations);
      };
      // Each target has its own printer, so protoplugin never runs the TypeScript compiler to
      // transpile one target into another.
      const response = createEcmaScriptPlugin({
        name: pluginName,
        version: `v${pluginVersion}`,
        parseOptions: parseHarnessToolOptions,
        generateTs: generate,
        generateJs: generate,
        generateDts: generate,
      }).run(request);
      if (!run) return response;
      for (const line of run.warnings) warn(line);
      if (run.errors.length > 0) return failure(run.errors);
      return withNoCheck(withContents(response, await declarations.compile()), run.noCheck);
    },
  };
}

/**
 * The plugin plugin/main.ts runs: warnings to stderr, and files named from the folder buf runs in,
 * as buf names them.
 */
export const protocGenHarnessTool: HarnessToolPlugin = createHarnessToolPlugin(
  (line) => process.stderr.write(`${line}\n`),
  sourcePathsFrom(process.cwd()),
);

/** What one in-process run produced. */
export interface PluginRun {
  readonly response: CodeGeneratorResponse;
  /** Warning lines (also produced when generation fails). */
  readonly warnings: readonly string[];
  /** The lines of response.error, one per problem. */
  readonly errors: readonly string[];
}

/**
 * Runs the plugin in-process on one request, as plugin/main.ts would, collecting the warnings; a
 * bad plugin option rejects with protoplugin's option error.
 */
export async function runProtocPlugin(
  request: CodeGeneratorRequest,
  sourcePath?: (file: string) => string,
): Promise<PluginRun> {
  const warnings: string[] = [];
  const response = await createHarnessToolPlugin((line) => warnings.push(line), sourcePath).run(request);
  return { response, warnings, errors: response.error ? response.error.split("\n") : [] };
}
