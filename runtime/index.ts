/**
 * harness-tool: write tool providers for the PluggableHarness kernel.
 *
 * This entry is what a provider author writes against: `serve`, the tools and the provider
 * (`defineTool`, `defineProvider`, `defineConfig`), the handler contexts and their types, the hooks'
 * handler types, and `ToolError`/`configError`. `test/runtime/main-entry.test.ts` pins the list.
 * The rest is behind subpaths that say what it is:
 *
 * - `harness-tool/schema`: the ToolSchema rules (JSON-Schema subset, invariants, validators, wire form);
 * - `harness-tool/service`: the ToolService in-process, without go-plugin (`createToolService`);
 * - `harness-tool/errors`: gRPC status errors and the error category tables;
 * - `harness-tool/hook-points`: the hook point table and the hook declaration's rules;
 * - `harness-tool/host`: the go-plugin host (launch a provider, call it, dispatch hooks);
 * - `harness-tool/redaction`, `harness-tool/supervisor`, `harness-tool/testing`;
 * - `harness-tool/generated/...`: the wire types (protoc-gen-es output), per file, e.g.
 *   `import { ToolSchemaSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js"`.
 *
 * Everything else in runtime/ is internal; the tests import it from its own file.
 */

import { armStartFailureGuard } from "./transport/start-failure.js";

// In a process a go-plugin host started, an exception before serve() takes over is reported as a
// start failure the host's launch error shows (runtime/transport/start-failure.ts). The modules
// of a provider import harness-tool before their own code runs, so this is armed first.
armStartFailureGuard();

export { serve, type ServeOptions } from "./serve.js";

export type { JsonSchema, JsonSchemaObject } from "./schema/json-schema.js";
export type { ValueValidator, ValueViolation } from "./schema/value-violation.js";
export {
  defineTool,
  type CheckedToolSpec,
  type ConcurrencySpec,
  type DataSourceToolSpec,
  type ErasedToolSpec,
  type ExplicitToolBuilder,
  type InteractiveToolSpec,
  type ResourceToolSpec,
  type SchemaFirstSpec,
  type ToolDefinition,
  type ToolDefinitionOf,
  type ToolSpec,
  type ToolTraits,
  type ToolValidators,
} from "./provider/define-tool.js";
export type { ValueOfSchema } from "./provider/schema-value-type.js";
export { configError } from "./errors/config-error.js";
export { ToolError, isToolError, type ToolErrorCategoryName, type ToolErrorOptions } from "./errors/tool-error.js";
export type {
  CallInfo,
  CancelReport,
  ChildExit,
  EmittedEvent,
  KernelCallbacks,
  LogLevelName,
  PreviewContext,
  ProcessToolContext,
  RenderContext,
  RenderTreeInit,
  SpawnToolOptions,
  StreamingToolContext,
  ToolContext,
  ToolLogger,
} from "./provider/tool-context.js";
export { eventSchemaVersion } from "./provider/tool-context.js";
export type {
  ConfigAttributeDeclaration,
  ConfigAttributeTypeName,
  ConfigDefinition,
  ConfigureContext,
  ConfigureHook,
  ContextFor,
  HandlerFor,
  PreviewHandler,
  ProviderDefinition,
  ProviderIdentity,
  RenderHandler,
  ToolHandler,
  ToolImplementation,
} from "./provider/provider-definition.js";
export type {
  HookCallInfo,
  HookContext,
  HookKernelCallbacks,
  HookModeName,
  HookModes,
  HookPayloads,
  HookPointName,
  HookSubscription,
  HookSubscriptions,
  HookSubscriptionsFor,
  HookTransformResults,
  HookVerdict,
  MutableHookPointName,
  ObserveHook,
  TransformFor,
  TransformHook,
  VetoHook,
} from "./provider/hook-subscriptions.js";
export {
  defineProvider,
  emptyConfig,
  type HandlersFor,
  type PreviewsFor,
  type ProviderSpec,
} from "./provider/define-provider.js";
export { defineConfig, type ConfigAttributeSpec } from "./provider/define-config.js";
export {
  interactiveTool,
  renderTreeText,
  type InteractiveSpec,
  type InteractiveTerminal,
  type InteractiveTool,
  type InteractiveToolDefinition,
} from "./provider/interactive-tool.js";
