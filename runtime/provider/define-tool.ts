/**
 * The schema builder: one declaration site per tool, whose types reject invalid declarations at
 * compile time with the error on the offending property. The rules are the invariants of
 * invariants.ts, expressed for the compiler:
 *
 * - a resource declares low/moderate/high/critical risk; data_source and interactive read_only;
 * - resource and data_source declare `concurrency`; interactive never does;
 * - `keyFields` only with `safe: true`, and only naming top-level keys of the input type;
 * - `terminatesTurn: true` only on a resource;
 * - `idempotent` is always stated;
 * - `kind`, `streaming` and `processBacked` are literals, so a widened value cannot dodge a rule.
 *
 * Each kind has its own spec interface (as a data source simply has no place for a resource's
 * options); `defineTool` infers the kind and the streaming shape as literals and checks the
 * argument against that one interface, which is what puts each error on its property.
 *
 * `defineTool(spec)` takes the handler's input and output types from the spec's literal schemas
 * (schema-value-type.ts), so a hand-written tool states them once; `defineTool<Input, Output>()(spec)`
 * takes them as type arguments, for types that exist apart from the schemas.
 *
 * Generated code calls `defineTool<Input, Output, Traits>()(spec)`: its specs were checked by the
 * plugin, so it gives every type explicitly and leaves the compiler nothing to infer.
 */
import type { JsonSchemaObject } from "../schema/json-schema.js";
import type { ValueOfSchema } from "./schema-value-type.js";
import type {
  ConcurrencyDeclaration,
  ResourceRiskName,
  RiskName,
  ToolDeclaration,
  ToolKindName,
} from "../schema/tool-declaration.js";
import type { ValueValidator } from "../schema/value-violation.js";

/** `concurrency` of a resource or data source, typed from the input's top-level keys. */
export type ConcurrencySpec<Input> =
  | { readonly safe: false; readonly keyFields?: "keyFields needs concurrency.safe = true" }
  | { readonly safe: true; readonly keyFields?: readonly (keyof Input & string)[] };

/** Validators compiled at generation time; without them the runtime interprets the schemas. */
export interface ToolValidators {
  readonly input: ValueValidator;
  readonly output: ValueValidator;
}

/** What every tool declares, whatever its kind. */
interface ToolSpecBase {
  /** The wire name the model calls, unique within the provider, e.g. "read_file". */
  readonly name: string;
  /** Shown to the model for tool selection and to people in plan diffs. Never empty. */
  readonly description: string;
  /** The input's JSON Schema, in the common subset. */
  readonly inputSchema: JsonSchemaObject;
  /** The result payload's JSON Schema, in the common subset. */
  readonly outputSchema: JsonSchemaObject;
  /** True only if re-running with identical arguments cannot end in a different state. Always stated. */
  readonly idempotent: boolean;
  /** Invoke may emit intermediate events. Must be a literal. Default false. */
  readonly streaming?: boolean;
  /** The tool runs a child process; implies streaming. Must be a literal. Default false. */
  readonly processBacked?: boolean;
  /** The deadline the kernel applies, in milliseconds (SHOULD be set). The runtime enforces it too. */
  readonly defaultTimeoutMs?: number;
  /** The provider implements Preview for this tool. */
  readonly preview?: boolean;
  /** Generated validators; hand-written tools leave this out. */
  readonly validators?: ToolValidators;
}

/** A mutating tool, gated behind plan/apply approval. */
export interface ResourceToolSpec<Input> extends ToolSpecBase {
  readonly kind: "resource";
  readonly risk: ResourceRiskName;
  readonly concurrency: ConcurrencySpec<Input>;
  /** A call ends the turn as a successful DoneCheck. */
  readonly terminatesTurn?: boolean;
}

/** A read-only tool; it executes freely. */
export interface DataSourceToolSpec<Input> extends ToolSpecBase {
  readonly kind: "data_source";
  readonly risk: "read_only";
  readonly concurrency: ConcurrencySpec<Input>;
  readonly terminatesTurn?: false | "terminatesTurn is for resource tools only";
}

/** A tool that blocks the turn on a human answer; the kernel runs these one at a time. */
export interface InteractiveToolSpec extends ToolSpecBase {
  readonly kind: "interactive";
  readonly risk: "read_only";
  readonly concurrency?: "interactive tools never declare concurrency (the kernel runs them one at a time)";
  readonly terminatesTurn?: false | "terminatesTurn is for resource tools only";
}

/** The spec interface of each kind. */
export interface ToolSpecByKind<Input> {
  resource: ResourceToolSpec<Input>;
  data_source: DataSourceToolSpec<Input>;
  interactive: InteractiveToolSpec;
}

/** Any valid spec. */
export type ToolSpec<Input> = ToolSpecByKind<Input>[ToolKindName];

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;

/**
 * The parameter type of defineTool's inner call: the kind's spec, or a message on the property
 * whose literal was widened. `S` and `P` are `undefined` when the property is left out.
 */
export type CheckedToolSpec<
  Input,
  K extends ToolKindName,
  S extends boolean | undefined,
  P extends boolean | undefined,
  Pv extends boolean | undefined,
> =
  true extends IsUnion<K>
    ? { readonly kind: 'kind must be one literal: "resource", "data_source" or "interactive"' }
    : boolean extends S
      ? { readonly streaming: "streaming must be the literal true or false" }
      : boolean extends P
        ? { readonly processBacked: "processBacked must be the literal true or false" }
        : [P, S] extends [true, false]
          ? { readonly streaming: "a processBacked tool streams: leave streaming out or set it to true" }
          : ToolSpecByKind<Input>[K] & {
              readonly kind: K;
              readonly streaming?: S & boolean;
              readonly processBacked?: P & boolean;
              readonly preview?: Pv & boolean;
            };

/** Whether a tool streams, from its streaming and processBacked literals. */
export type StreamingOf<S, P> = P extends true ? true : S extends true ? true : false;

/**
 * A declared tool: its erased declaration for the runtime, plus phantom types that give the
 * handler its input, output and context.
 */
export interface ToolDefinition<
  Input = unknown,
  Output = unknown,
  Kind extends ToolKindName = ToolKindName,
  Streaming extends boolean = boolean,
  ProcessBacked extends boolean = boolean,
  Preview extends boolean = boolean,
> {
  readonly declaration: ToolDeclaration;
  readonly validators: ToolValidators | undefined;
  /** Type-level only: never set at run time. */
  readonly __types?: {
    input: Input;
    output: Output;
    kind: Kind;
    streaming: Streaming;
    processBacked: ProcessBacked;
    preview: Preview;
  };
}

/**
 * The literal schemas of a schema-first spec. A schema whose type is the general
 * `JsonSchemaObject` (annotated, or built at run time) gives the compiler no properties to type the
 * handler with: it is refused on the property, with the fix.
 */
export interface SchemaFirstSpec<InputSchema, OutputSchema> {
  readonly inputSchema: string extends keyof PropertiesOf<InputSchema>
    ? "inputSchema must be a literal schema: write it inline or declare it `as const`"
    : InputSchema;
  readonly outputSchema: string extends keyof PropertiesOf<OutputSchema>
    ? "outputSchema must be a literal schema: write it inline or declare it `as const`"
    : OutputSchema;
}

type PropertiesOf<Schema> = Schema extends { readonly properties: infer P } ? P : never;

/** The second call of the explicit form, `defineTool<Input, Output>()(spec)`: the spec, checked against its kind. */
export type ExplicitToolBuilder<Input, Output> = <
  K extends ToolKindName,
  S extends boolean | undefined = undefined,
  P extends boolean | undefined = undefined,
  Pv extends boolean | undefined = undefined,
>(
  spec: CheckedToolSpec<Input, K, S, P, Pv>,
) => ToolDefinition<Input, Output, K, StreamingOf<S, P>, P extends true ? true : false, Pv extends true ? true : false>;

/**
 * Declares a tool whose spec was checked where it was written, with every type given: the form
 * generated code uses. It needs no inference and no conditional types, so a provider of many tools
 * type-checks at the cost of plain declarations; protoc-gen-harness-tool has checked each spec
 * with the runtime's invariants when it generated it (and `serve()` checks them again at start-up).
 * Hand-written tools use the forms below, whose types reject an invalid spec on the offending
 * property. (This form is declared first so that a wrong type argument is reported alone.)
 *
 * ```ts
 * export const readFileTool = defineTool<
 *   ReadFileInput,
 *   ReadFileOutput,
 *   { kind: "data_source"; streaming: false; processBacked: false; preview: false }
 * >()({ ... });
 * ```
 */
export function defineTool<Input, Output, Traits extends ToolTraits>(): (
  spec: ErasedToolSpec,
) => ToolDefinitionOf<Input, Output, Traits>;
/**
 * Declares a tool from its spec alone: the input and output schemas, written inline or `as const`,
 * give the handler its input and output types (`ValueOfSchema`), so the schema and the types cannot
 * drift apart. The spec is checked against its kind's rules as in the explicit form, each error on
 * its property, and `keyFields` may name only the input schema's top-level properties.
 *
 * @example
 * ```ts
 * import { defineTool } from "harness-tool";
 *
 * export const readFile = defineTool({
 *   name: "read_file",
 *   kind: "data_source",
 *   risk: "read_only",
 *   description: "Reads a text file.",
 *   inputSchema: {
 *     type: "object",
 *     properties: { path: { type: "string", description: "The file." }, limit: { type: "number" } },
 *     required: ["path"],
 *   },
 *   outputSchema: { type: "object", properties: { content: { type: "string" } }, required: ["content"] },
 *   concurrency: { safe: true, keyFields: ["path"] },
 *   idempotent: true,
 *   defaultTimeoutMs: 10_000,
 * });
 * // The handler of readFile takes { path: string; limit?: number } and returns { content: string }.
 * ```
 */
export function defineTool<
  const InputSchema extends JsonSchemaObject,
  const OutputSchema extends JsonSchemaObject,
  K extends ToolKindName,
  S extends boolean | undefined = undefined,
  P extends boolean | undefined = undefined,
  Pv extends boolean | undefined = undefined,
>(
  spec: CheckedToolSpec<PropertiesOf<InputSchema>, K, S, P, Pv> & SchemaFirstSpec<InputSchema, OutputSchema>,
): ToolDefinition<
  ValueOfSchema<InputSchema>,
  ValueOfSchema<OutputSchema>,
  K,
  StreamingOf<S, P>,
  P extends true ? true : false,
  Pv extends true ? true : false
>;
/**
 * Declares a tool whose input and output types are given apart from its schemas (types generated
 * or written elsewhere): the types first, then the spec. The schema-first form,
 * `defineTool(spec)`, states them once instead.
 *
 * @example
 * ```ts
 * import { defineTool, type JsonSchemaObject } from "harness-tool";
 *
 * interface ReadFileInput {
 *   path: string;
 * }
 * interface ReadFileOutput {
 *   content: string;
 * }
 * const inputSchema: JsonSchemaObject = {
 *   type: "object",
 *   properties: { path: { type: "string" } },
 *   required: ["path"],
 * };
 * const outputSchema: JsonSchemaObject = {
 *   type: "object",
 *   properties: { content: { type: "string" } },
 *   required: ["content"],
 * };
 *
 * export const readFile = defineTool<ReadFileInput, ReadFileOutput>()({
 *   name: "read_file",
 *   kind: "data_source",
 *   risk: "read_only",
 *   description: "Reads a text file.",
 *   inputSchema,
 *   outputSchema,
 *   concurrency: { safe: true },
 *   idempotent: true,
 *   defaultTimeoutMs: 10_000,
 * });
 * ```
 */
export function defineTool<Input extends object, Output extends object>(): ExplicitToolBuilder<Input, Output>;
export function defineTool(spec?: object): unknown {
  return spec === undefined ? definitionOf : definitionOf(spec);
}

/** The definition of a spec the types have checked (it may carry their message strings, never read). */
function definitionOf(spec: object): ToolDefinition {
  const s = spec as ErasedToolSpec;
  return { declaration: declarationOf(s), validators: s.validators };
}

/**
 * A spec of any kind with its types erased: what the fully explicit `defineTool<Input, Output,
 * Traits>()` takes, because whoever wrote it has already checked it against the invariants
 * (protoc-gen-harness-tool, at generation time).
 */
export interface ErasedToolSpec extends ToolSpecBase {
  readonly kind: ToolKindName;
  readonly risk: RiskName;
  readonly concurrency?: ConcurrencyDeclaration;
  readonly terminatesTurn?: boolean;
}

/**
 * The traits of a tool that shape its handler's context and its preview, by name: what the fully
 * explicit `defineTool<Input, Output, Traits>()` takes instead of four positional type arguments.
 */
export interface ToolTraits {
  readonly kind: ToolKindName;
  readonly streaming: boolean;
  readonly processBacked: boolean;
  readonly preview: boolean;
}

/** The `ToolDefinition` of a tool with the input, output and traits given. */
export type ToolDefinitionOf<Input, Output, Traits extends ToolTraits> = ToolDefinition<
  Input,
  Output,
  Traits["kind"],
  Traits["streaming"],
  Traits["processBacked"],
  Traits["preview"]
>;

/** The erased declaration of a spec, every default stated. */
function declarationOf(s: ErasedToolSpec): ToolDeclaration {
  const processBacked = s.processBacked === true;
  // A hand-written spec may carry the compile-time message strings in place of a concurrency.
  const concurrency = s.kind === "interactive" || typeof s.concurrency !== "object" ? undefined : s.concurrency;
  return {
    name: s.name,
    kind: s.kind,
    risk: s.risk,
    description: s.description,
    inputSchema: s.inputSchema,
    outputSchema: s.outputSchema,
    streaming: processBacked || s.streaming === true,
    processBacked,
    ...(concurrency
      ? {
          concurrency:
            concurrency.safe && Array.isArray(concurrency.keyFields)
              ? { safe: true, keyFields: [...concurrency.keyFields] }
              : { safe: concurrency.safe },
        }
      : {}),
    ...(s.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: s.defaultTimeoutMs } : {}),
    idempotent: s.idempotent,
    terminatesTurn: s.terminatesTurn === true,
    preview: s.preview === true,
  };
}
