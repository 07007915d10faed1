/**
 * harness-tool/host: the host side of go-plugin in TypeScript, what the CLI runs a provider with.
 * `launch()` starts a provider binary exactly as the kernel does and gives typed ToolService calls
 * (Configure, GetSchema, Describe, Preview, Render, Invoke), DispatchHook as the kernel fires a
 * hook, the KernelCallbackService it serves on the broker (its calls recorded), the stderr log
 * lines and a go-plugin Kill(); a failed call is a ProviderCallError or a HookDispatchError, the
 * host's reading of the status the provider sent.
 */
export {
  launch,
  kernelEnvironment,
  killGraceMs,
  type HookDispatchOptions,
  type KillReport,
  type LaunchedProvider,
  type LaunchOptions,
} from "./launch.js";
export { describeExit, type ProviderExit } from "./process-exit.js";
export { HookDispatchError, hookErrorFromStatus } from "./hook-dispatch-error.js";
export { hookPayloadSchemas } from "../provider/hook-payload-schemas.js";
export {
  InvokeCall,
  type InvokeOutcome,
  type InvokeReadOptions,
  type OutputDigest,
  type OutputStreamDigest,
} from "./invoke-call.js";
export { ProviderCallError } from "./provider-call-error.js";
export type { KernelResponders, RecordedCallbacks, RecordingKernel } from "./recording-kernel.js";
export { parseHostLogLine, type HostLogEntry } from "./host-log-lines.js";
export { parseHandshakeLine, type Handshake } from "../transport/handshake-line.js";
export { kernelHandshake } from "../transport/plugin-environment.js";
export type { ReceivedSpan, ReceivedValue } from "../telemetry/otlp-trace-request.js";
export { formatSpanTree } from "../telemetry/span-tree.js";
