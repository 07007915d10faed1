/**
 * `harness-tool/service`: the ToolService semantics in-process, without go-plugin, for tests and
 * another transport (serve() runs the same service behind go-plugin): `createToolService` and the
 * door it opens (`ToolServiceCore`), the sink an Invoke writes to, the kernel client it calls back
 * through, the start-up check of a provider, and the protocol's version and chunk bound.
 */
export { PROTOCOL_VERSION } from "./protocol-version.js";
export type { CancelSignal, InvokeSink, ToolServiceCore } from "./tool-service-core.js";
export { createToolService, type ToolService, type ToolServiceOptions } from "./tool-service.js";
export type { KernelClient } from "../kernel/kernel-client.js";
export { maxOutputChunkBytes } from "./invoke-outbox.js";
export { checkProvider, ProviderDefinitionError, type ProviderCheck } from "./check-provider.js";
