/**
 * harness-tool: write tool providers for the PluggableHarness kernel.
 *
 * The wire types (protoc-gen-es output for the kernel's protos and harness-tool's annotations) are
 * exported per file under `harness-tool/generated/...`, e.g.
 * `import { ToolSchemaSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js"`.
 *
 * This file is the package's public boundary: what it exports is the API, except declarations
 * marked `@private` (helpers the code protoc-gen-harness-tool generates calls: toolPart,
 * assembleProvider), which follow the generator, not semantic
 * versioning. Everything else in runtime/ is internal; the tests import it from its own file.
 */

import { armStartFailureGuard } from "./transport/start-failure.js";

export { PROTOCOL_VERSION } from "./service/calls/protocol-version.js";

// In a process a go-plugin host started, an exception before serve() takes over is reported as a
// start failure the host's launch error shows (runtime/transport/start-failure.ts). The modules
// of a provider import harness-tool before their own code runs, so this is armed first.
armStartFailureGuard();

export { serve, type ServeOptions } from "./serve.js";

// The ToolSchema rules (also `harness-tool/schema` on their own, without the server).
export * from "./schema/index.js";
export type { ValueValidator, ValueViolation } from "./schema/value-violation.js";
export {
  defineTool,
  toolDefinition,
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
} from "./schema/define-tool.js";
export type { ValueOfSchema } from "./schema/schema-value-type.js";
export { validateValue, validatorFor, type ValueCheck } from "./schema/validate-value.js";
export {
  jsonSchemaFromWire,
  jsonSchemaToWire,
  toolDeclarationFromWire,
  toolDeclarationToWire,
} from "./schema/wire-schema.js";
export { configError } from "./errors/config-error.js";
export { ToolError, isToolError, toolErrorCategories, toolErrorCategoryNames, type ToolErrorCategoryName, type ToolErrorOptions } from "./errors/tool-error.js";
export type {
  CallInfo,
  ChildExit,
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
export {
  hookDeclarationProblems,
  hookModeTable,
  hookPointNames,
  hookPointTable,
  supportedHookPointsOf,
  type ErasedHookModes,
  type HookCallInfo,
  type HookContext,
  type HookKernelCallbacks,
  type HookModeName,
  type HookModes,
  type HookPayloads,
  type HookPointName,
  type HookSubscription,
  type HookSubscriptions,
  type HookSubscriptionsFor,
  type HookTable,
  type HookTransformResults,
  type HookVerdict,
  type MutableHookPointName,
  type ObserveHook,
  type TransformFor,
  type TransformHook,
  type VetoHook,
} from "./provider/hook-subscriptions.js";
export {
  assembleProvider,
  defineProvider,
  emptyConfig,
  toolPart,
  type HandlersFor,
  type ProviderParts,
  type ProviderSpec,
  type ToolPart,
} from "./provider/define-provider.js";

// The ToolService semantics (runtime/service), for running a provider in-process (tests, another
// transport): serve() runs the same service behind go-plugin.
export type { InvokeSink, ToolServiceCore } from "./service/calls/tool-service-core.js";
export type { CancelSignal } from "./telemetry/call-spans.js";
export { createToolService, type ToolService, type ToolServiceOptions } from "./service/calls/tool-service.js";
export type { KernelClient } from "./service/kernel/kernel-client.js";
export { maxOutputChunkBytes } from "./service/calls/invoke-outbox.js";
export { checkProvider, ProviderDefinitionError, type ProviderCheck } from "./service/calls/check-provider.js";
export { defineConfig, decodeConfig, type ConfigAttributeSpec } from "./service/calls/config-decoder.js";
export { redactionMarker } from "./redaction/redact-secrets.js";
export { GrpcCode, RpcStatusError, type GrpcCodeValue } from "./errors/rpc-status-error.js";

// Not exported, on purpose: the redactor and the exits (secrets are redacted where bytes leave,
// never by handlers), the process guards, path resolution (a handler has ctx.resolvePath), the
// error normalizer, the transport and the go-plugin host (harness-tool/testing has the host).
