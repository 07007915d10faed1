/**
 * Assembling a ProviderDefinition with `defineProvider`, whose mapped types give every handler its
 * input, output and context from the tool definitions. Hand-written providers and the generated
 * `createFooProvider(handlers)` factories both call it (the factories with explicit type arguments).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { HookPoint } from "../generated/pluggableharness/common/v1/common_pb.js";
import type { ToolDefinition } from "./define-tool.js";
import type { ToolKindName } from "../schema/tool-declaration.js";
import { validatorFor } from "../schema/validate-value.js";
import {
  hookDeclarationProblems,
  hookPointTable,
  supportedHookPointsOf,
  type HookSubscriptions,
  type HookTable,
} from "./hook-subscriptions.js";
import type {
  ConfigDefinition,
  ConfigureHook,
  HandlerFor,
  PreviewHandler,
  ProviderDefinition,
  ProviderIdentity,
  RenderHandler,
  ToolHandler,
  ToolImplementation,
} from "./provider-definition.js";

/** One tool as the provider is assembled from it: its definition, handler and optional preview. */
interface ToolPart {
  readonly tool: ToolDefinition<unknown, unknown>;
  readonly handler: unknown;
  readonly preview?: unknown;
}

/** What a provider declares besides its tools and their handlers. */
export interface ProviderParts<Config> extends ProviderIdentity {
  readonly config?: ConfigDefinition<Config>;
  readonly slashCommands?: ProviderDefinition<Config>["slashCommands"];
  /**
   * The hook points a generated provider's proto annotation (`supported_hook_points`) claims:
   * checked against `hooks`, never served on its own.
   */
  readonly supportedHookPoints?: readonly HookPoint[];
  /** The hook subscriptions: per point, the modes accepted and their handlers (docs/hooks.md). */
  readonly hooks?: HookSubscriptions<Config>;
  readonly renderers?: { readonly [schemaVersion: string]: RenderHandler<Config> };
  readonly allowedRoots?: (config: Config) => readonly string[];
  /** Checks each configuration at Configure, before any Invoke sees it; throw to refuse (docs/runtime.md#the-configure-hook). */
  readonly configure?: ConfigureHook<Config>;
}

/** The configuration of a provider that declares none: only an empty object is accepted. */
export function emptyConfig(): ConfigDefinition<Record<string, never>> {
  return {
    attributes: [],
    decode: (value: JsonObject) => {
      const extra = Object.keys(value);
      if (extra.length === 0) return { ok: true, value: {} };
      return {
        ok: false,
        violations: extra.map((name) => ({
          path: `/${name}`,
          message: "is not a known attribute (this provider takes no configuration)",
        })),
      };
    },
  };
}

/**
 * Builds a ProviderDefinition from erased parts. A tool whose definition says `preview` must come
 * with a preview handler and one that does not must come without: a mismatch throws here, when the
 * provider is created, naming the tool.
 */
function assembleProvider<Config>(
  parts: ProviderParts<Config>,
  toolParts: readonly ToolPart[],
): ProviderDefinition<Config> {
  const tools: ToolImplementation[] = toolParts.map(({ tool, handler, preview }) => {
    const d = tool.declaration;
    if (d.preview && !preview) {
      throw new TypeError(`tool ${d.name} declares preview, but no preview handler was given`);
    }
    if (!d.preview && preview) {
      throw new TypeError(`tool ${d.name} has a preview handler but does not declare preview (set preview: true)`);
    }
    return {
      declaration: d,
      validateInput: tool.validators?.input ?? validatorFor(d.inputSchema),
      validateOutput: tool.validators?.output ?? validatorFor(d.outputSchema),
      handler: handler as ToolHandler<never, unknown, never>,
      ...(preview ? { preview: preview as ToolImplementation["preview"] & object } : {}),
    };
  });
  checkHooks(parts.name, parts.hooks, parts.supportedHookPoints);
  return {
    name: parts.name,
    version: parts.version,
    source: parts.source,
    tools,
    config: parts.config ?? (emptyConfig() as unknown as ConfigDefinition<Config>),
    slashCommands: parts.slashCommands ?? [],
    ...(parts.hooks ? { hooks: parts.hooks as HookTable } : {}),
    ...(parts.renderers ? { renderers: parts.renderers } : {}),
    ...(parts.allowedRoots ? { allowedRoots: parts.allowedRoots } : {}),
    ...(parts.configure ? { configure: parts.configure } : {}),
  };
}

/** Throws when the hook declaration is inconsistent, or does not match the points the proto claims. */
function checkHooks(provider: string, hooks: unknown, claimed: readonly HookPoint[] | undefined): void {
  const problems = hookDeclarationProblems(hooks);
  if (problems.length === 0 && claimed !== undefined) {
    const served = new Set(supportedHookPointsOf(hooks as HookTable));
    const nameOf = (point: HookPoint) =>
      Object.entries(hookPointTable).find(([, row]) => row.point === point)?.[0] ?? `HookPoint ${point}`;
    for (const point of claimed) {
      if (!served.has(point))
        problems.push(
          `hooks: ${nameOf(point)} is in supported_hook_points but has no handler: add hooks["${nameOf(point)}"] [hook-point-handled]`,
        );
    }
    for (const point of served) {
      if (!claimed.includes(point))
        problems.push(
          `hooks.${nameOf(point)}: not in the proto's supported_hook_points: add it there [hook-point-advertised]`,
        );
    }
  }
  if (problems.length > 0) throw new TypeError(`provider ${JSON.stringify(provider)}: ${problems.join("; ")}`);
}

type InputOf<T> = T extends ToolDefinition<infer Input> ? Input : never;
type PreviewKeys<Tools> = {
  [K in keyof Tools]: Tools[K] extends ToolDefinition<unknown, unknown, ToolKindName, boolean, boolean, true>
    ? K
    : never;
}[keyof Tools];

/**
 * The preview handlers of a record of tools: required for each tool that declares `preview`,
 * refused (with a message naming the fix) for the others.
 */
export type PreviewsFor<Tools, Config> = {
  readonly [K in PreviewKeys<Tools>]: PreviewHandler<InputOf<Tools[K]>, Config>;
} & {
  readonly [K in Exclude<
    keyof Tools,
    PreviewKeys<Tools>
  >]?: "this tool does not declare preview: set preview: true on it";
};

/** The tools of a provider, keyed by their handlers' names. */
export type ToolRecord = { readonly [key: string]: ToolDefinition<unknown, unknown> };

/** The handlers of a record of tools: one per key, typed from each definition. */
export type HandlersFor<Tools extends ToolRecord, Config> = {
  readonly [K in keyof Tools]: HandlerFor<Tools[K], Config>;
};

/** The spec of a provider: its identity, its tools, its configuration and the rest it declares. */
export interface ProviderSpec<Tools, Config> extends ProviderParts<Config> {
  /** The tools, keyed by the handler names. */
  readonly tools: Tools;
}

/**
 * Defines a provider whose handlers' type was written from the same declarations as its tools,
 * with the configuration's type given: the form generated code uses,
 * `defineProvider<FooConfig>()(spec, handlers, previews)`. protoc-gen-harness-tool writes the
 * handler interface and the tools from one model, so the compiler is not asked to map one onto
 * the other (a mapped type per tool, a quarter of a generated provider's type-check at 200 tools);
 * a tool without its handler or a preview that does not match its declaration still throws here,
 * naming the tool. Hand-written providers use the form below, which types every handler.
 */
export function defineProvider<Config>(): (
  spec: ProviderSpec<ToolRecord, Config>,
  handlers: object,
  previews?: ErasedPreviews,
) => ProviderDefinition<Config>;
/**
 * Defines a provider by hand, with every handler typed from its tool: its input, its result and
 * its context (a streaming tool's context emits progress, a process-backed tool's spawns).
 *
 * @example
 * ```ts
 * import { readFile } from "node:fs/promises";
 * import { defineProvider, defineTool } from "harness-tool";
 *
 * const readTextFile = defineTool({
 *   name: "read_file",
 *   kind: "data_source",
 *   risk: "read_only",
 *   description: "Reads a text file.",
 *   inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
 *   outputSchema: { type: "object", properties: { content: { type: "string" } }, required: ["content"] },
 *   concurrency: { safe: true },
 *   idempotent: true,
 * });
 *
 * export const provider = defineProvider(
 *   { name: "fs", version: "1.0.0", source: "github.com/acme/fs", tools: { readTextFile } },
 *   {
 *     readTextFile: async (input, ctx) => {
 *       ctx.signal.throwIfAborted();
 *       return { content: await readFile(ctx.resolvePath(input.path), "utf8") };
 *     },
 *   },
 * );
 * ```
 */
export function defineProvider<const Tools extends ToolRecord, Config = Record<string, never>>(
  spec: ProviderSpec<Tools, Config>,
  handlers: HandlersFor<Tools, Config>,
  previews?: PreviewsFor<Tools, Config>,
): ProviderDefinition<Config>;
export function defineProvider(
  spec?: ProviderSpec<ToolRecord, unknown>,
  handlers?: object,
  previews?: object,
): unknown {
  return spec === undefined ? providerOf : providerOf(spec, handlers as object, previews as ErasedPreviews | undefined);
}

/** Preview handlers by tool key, their types erased (each handler's types were checked where it was written). */
export interface ErasedPreviews {
  readonly [key: string]: (input: never, context: never) => Promise<unknown>;
}

/** The provider of a spec and its handlers, whatever form checked their types. */
function providerOf<Config>(
  spec: ProviderSpec<ToolRecord, Config>,
  handlers: object,
  previews: object | undefined,
): ProviderDefinition<Config> {
  const previewMap = (previews ?? {}) as { readonly [key: string]: unknown };
  // Handlers may be methods of one object (a class instance, the generated factories' handlers):
  // each is called with that object as `this`, as `handlers.name(input, context)` would be.
  const bound = (owner: object, f: unknown) => (typeof f === "function" ? f.bind(owner) : f);
  const { tools, ...parts } = spec;
  return assembleProvider<Config>(
    parts,
    Object.entries(tools).map(([key, tool]) => ({
      tool: tool as ToolDefinition<unknown, unknown>,
      handler: bound(handlers, (handlers as { readonly [key: string]: unknown })[key]),
      preview: bound(previewMap, previewMap[key]),
    })),
  );
}
