/**
 * What `serve()` runs: a provider's identity, its tools with their handlers, its configuration and
 * its optional Render. Generated `createFooProvider(handlers)` factories and hand-written providers
 * both produce a ProviderDefinition through `defineProvider`.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ToolDefinition } from "./define-tool.js";
import type { HookTable } from "./hook-subscriptions.js";
import type { ToolDeclaration, ToolKindName } from "../schema/tool-declaration.js";
import type { ValueValidator, ValueViolation } from "../schema/value-violation.js";
import type {
  PreviewContext,
  ProcessToolContext,
  RenderContext,
  RenderTreeInit,
  StreamingToolContext,
  ToolContext,
} from "./tool-context.js";

/** The context type a tool's handler receives, from its declared streaming shape. */
export type ContextFor<Streaming extends boolean, ProcessBacked extends boolean, Config> = ProcessBacked extends true
  ? ProcessToolContext<Config>
  : Streaming extends true
    ? StreamingToolContext<Config>
    : ToolContext<Config>;

/** The handler of a tool: typed input and context in, the typed result payload out. */
export type ToolHandler<Input, Output, Context> = (input: Input, context: Context) => Promise<Output>;

/** The handler type of one ToolDefinition. */
export type HandlerFor<T, Config> =
  T extends ToolDefinition<infer Input, infer Output, ToolKindName, infer Streaming, infer ProcessBacked>
    ? ToolHandler<Input, Output, ContextFor<Streaming, ProcessBacked, Config>>
    : never;

/** A Preview handler: describes what a call would do, without doing it. */
export type PreviewHandler<Input, Config> = (input: Input, context: PreviewContext<Config>) => Promise<RenderTreeInit>;

/** A Render handler for one schema version of the provider's emitted payloads. */
export type RenderHandler<Config> = (payload: Uint8Array, context: RenderContext<Config>) => Promise<RenderTreeInit>;

/** One tool with its implementation, erased to what the runtime needs. */
export interface ToolImplementation {
  readonly declaration: ToolDeclaration;
  /** Compiled at generation time, or interpreted from the declaration's schemas. */
  readonly validateInput: ValueValidator;
  readonly validateOutput: ValueValidator;
  readonly handler: ToolHandler<never, unknown, never>;
  /** Present exactly when the declaration says `preview`. */
  readonly preview?: PreviewHandler<never, never>;
}

/** ConfigAttribute.type, by name. */
export type ConfigAttributeTypeName =
  | "string"
  | "number"
  | "bool"
  | "list_string"
  | "list_number"
  | "map_string"
  | "object";

/** One attribute of the provider's agent.hcl block (config.v1.ConfigAttribute). */
export interface ConfigAttributeDeclaration {
  readonly name: string;
  readonly type: ConfigAttributeTypeName;
  readonly required: boolean;
  /** A secret: its value is redacted from everything the provider sends. */
  readonly sensitive: boolean;
  readonly description: string;
  /** The attributes of an `object` attribute. */
  readonly objectAttributes?: readonly ConfigAttributeDeclaration[];
  /** The default, as JSON text. */
  readonly defaultJson?: string;
}

/** The provider's configuration: its schema and how Configure decodes it. */
export interface ConfigDefinition<Config> {
  readonly attributes: readonly ConfigAttributeDeclaration[];
  /**
   * Decodes ConfigureRequest.config (as JSON) into the typed config, or lists every missing
   * required field and wrong type. Generated providers pass a compiled decoder.
   */
  readonly decode: (
    value: JsonObject,
  ) => { ok: true; value: Config } | { ok: false; violations: readonly ValueViolation[] };
}

/** What the configure hook gets besides the config. */
export interface ConfigureContext {
  /**
   * Aborted at the Configure call's deadline (the host's, or 30 s when it sets none): stop, the
   * configuration is refused with a `timeout` ToolError either way.
   */
  readonly signal: AbortSignal;
}

/**
 * The provider's own check of a configuration (`configure` of defineProvider and of a generated
 * factory's options): runs at Configure, after the config decoded and before any Invoke sees it.
 * Return to accept; throw to refuse: `configError("db_path", "cannot be opened: …")` (or an
 * `invalid_arguments` ToolError) names the attribute, another ToolError keeps its category, and
 * anything else is `unknown`. A refused Configure keeps the configuration in force before it.
 */
export type ConfigureHook<Config> = (config: Config, context: ConfigureContext) => Promise<void> | void;

/** The provider's identity, reported by Describe as ProducerRef. */
export interface ProviderIdentity {
  /** ProducerRef.name. */
  readonly name: string;
  /** ProducerRef.version. */
  readonly version: string;
  /** ProducerRef.source, e.g. "github.com/acme/provider-fs". */
  readonly source: string;
}

/** A provider ready for `serve()`. */
export interface ProviderDefinition<Config = unknown> extends ProviderIdentity {
  readonly tools: readonly ToolImplementation[];
  readonly config: ConfigDefinition<Config>;
  /** GetSchemaResponse.slash_commands: static template expansions. */
  readonly slashCommands: readonly { readonly name: string; readonly description: string; readonly template: string }[];
  /**
   * The hook subscriptions (`defineProvider({ hooks })`), served as HookSubscriberService on the
   * provider's connection; GetSchema's supported_hook_points is derived from their keys. Absent:
   * the provider subscribes to no hook point.
   */
  readonly hooks?: HookTable;
  /** Render handlers by RenderRequest.schema_version; absent when the provider does not implement Render. */
  readonly renderers?: { readonly [schemaVersion: string]: RenderHandler<Config> };
  /**
   * The capability boundary: the roots `resolvePath` allows, from the accepted config. Absent:
   * any path, resolved against the call's working directory.
   */
  readonly allowedRoots?: (config: Config) => readonly string[];
  /** The provider's check of each configuration, at Configure (ConfigureHook). Absent: decoding alone decides. */
  readonly configure?: ConfigureHook<Config>;
}
