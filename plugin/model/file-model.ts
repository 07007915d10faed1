/**
 * The first stage of the pipeline: descriptors and harness-tool options resolved into plain
 * models (one per generated file), or diagnostics with proto source positions. This file holds
 * the file's model and its naming; provider-model.ts resolves each service, tool-model.ts and
 * config-model.ts hold what a tool and a config become. Emitters read only these models.
 */
import { hasOption, type DescFile, type DescMessage, type DescMethod, type DescService } from "@bufbuild/protobuf";
import {
  provider as providerOption,
  tool as toolOption,
} from "harness-tool/generated/harnesstool/v1/annotations_pb.js";
import { DiagnosticSink } from "./diagnostics.js";
import { MessageShapes } from "./message-shapes.js";
import { IdentifierAllocator, lowerCamelCase, pascalCase, providerBaseName } from "./names.js";
import { buildProviderModel, type ProviderModel } from "./provider-model.js";
import { SourceIndex } from "./source-locations.js";

/** The generated modules of one proto file (`<file>_tool` and its companion `<file>_tool_schemas`). */
export interface FileModel {
  /** The proto file's name as protoc gives it, e.g. `examples/fs/v1/fs.proto`. */
  readonly protoFile: string;
  /** The generated API module's path without its extension, e.g. `examples/fs/v1/fs_tool`. */
  readonly outputBase: string;
  readonly providers: readonly ProviderModel[];
  /** Every name the file's generated modules declare (types, tools, schemas, validators, factories). */
  readonly declaredNames: readonly string[];
}

/** The model of every file to generate, or why it cannot be built. */
export interface ModelResult {
  readonly files: readonly FileModel[];
  readonly diagnostics: DiagnosticSink;
}

/**
 * Global types a generated file may rely on (or a handler author expect), never shadowed by a
 * message type. Imported names need no such list: protoplugin aliases an import whose name the
 * file declares.
 */
const globalTypeNames = new Set([
  "Array",
  "ArrayBuffer",
  "Boolean",
  "Date",
  "Error",
  "Exclude",
  "Extract",
  "Function",
  "Iterable",
  "JSON",
  "Map",
  "Math",
  "NonNullable",
  "Number",
  "Object",
  "Omit",
  "Partial",
  "Pick",
  "Promise",
  "Readonly",
  "ReadonlyArray",
  "Record",
  "RegExp",
  "Required",
  "Set",
  "String",
  "Symbol",
  "Uint8Array",
]);

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

function buildFileModel(
  file: DescFile,
  services: readonly DescService[],
  source: SourceIndex,
  diagnostics: DiagnosticSink,
): FileModel {
  // One namespace for the types and values the two modules of the file declare: a name the API
  // module re-exports from the schemas module must not be taken by anything else.
  const identifiers = new IdentifierAllocator();
  const messageNames = new Map<DescMessage, string>();
  const typeNameOf = (message: DescMessage): string => {
    let name = messageNames.get(message);
    if (name === undefined) {
      const wanted = nestedTypeName(message);
      // A message named like a global type (Record, Map, Error) would shadow it in the file.
      name = identifiers.allocate(globalTypeNames.has(wanted) ? `${wanted}Message` : wanted);
      messageNames.set(message, name);
    }
    return name;
  };
  const shapes = new MessageShapes({ source, diagnostics, typeNameOf });

  // Provider-level names first, so no message type takes them.
  const rpcCount = new Map<string, number>();
  for (const service of services)
    for (const m of service.methods) rpcCount.set(m.name, (rpcCount.get(m.name) ?? 0) + 1);
  const plans = services.map((service) => {
    const base = providerBaseName(service.name);
    const lower = lowerCamelCase(base);
    return {
      service,
      base,
      names: {
        handlers: identifiers.allocate(`${base}Handlers`),
        config: identifiers.allocate(`${base}Config`),
        options: identifiers.allocate(`${base}ProviderOptions`),
        configConst: identifiers.allocate(`${lower}Config`),
        factory: identifiers.allocate(`create${base}Provider`),
        toolSchemas: identifiers.allocate(`${lower}ToolSchemas`),
      },
    };
  });
  // Tool inputs and outputs name their messages before nested messages are named.
  const ioNames = new Map<DescMethod, { input: string; output: string }>();
  for (const { service, base } of plans) {
    for (const method of service.methods) {
      const prefix = (rpcCount.get(method.name) ?? 0) > 1 ? `${base}${method.name}` : method.name;
      const claim = (message: DescMessage, wanted: string): string => {
        const name = identifiers.allocate(wanted);
        if (!messageNames.has(message)) messageNames.set(message, name);
        return name;
      };
      ioNames.set(method, {
        input: claim(method.input, `${pascalCase(prefix)}Input`),
        output: claim(method.output, `${pascalCase(prefix)}Output`),
      });
    }
  }

  const providers = plans.map(({ service, base, names }) =>
    buildProviderModel(service, base, names, { source, diagnostics, shapes, identifiers, ioNames, rpcCount }),
  );
  return { protoFile: file.proto.name, outputBase: `${file.name}_tool`, providers, declaredNames: identifiers.names() };
}

/** `Outer.Inner` -> `OuterInner`: nested message names joined, as a TypeScript type name. */
function nestedTypeName(message: DescMessage): string {
  return message.parent ? `${nestedTypeName(message.parent)}${message.name}` : message.name;
}
