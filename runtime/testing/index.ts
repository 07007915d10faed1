/**
 * harness-tool/testing: the host side of go-plugin in TypeScript, for provider authors' tests and
 * the CLI. `launch()` starts a provider binary exactly as the kernel does and gives typed
 * ToolService calls, the recorded kernel callbacks, the stderr log lines and a go-plugin Kill().
 */
export {
  launch,
  kernelEnvironment,
  killGraceMs,
  type HookDispatchOptions,
  type KillReport,
  type LaunchedProvider,
  type LaunchOptions,
  type ProviderExit,
} from "./launch.js";
export { HookDispatchError, hookErrorFromStatus } from "../errors/hook-dispatch-error.js";
export { hookPayloadSchemas } from "../provider/hook-payload-schemas.js";
export { InvokeCall, type InvokeOutcome, type InvokeReadOptions, type OutputDigest, type OutputStreamDigest } from "./invoke-call.js";
export { ProviderCallError } from "../errors/provider-call-error.js";
export {
  startRecordingKernel,
  type KernelResponders,
  type RecordedCallbacks,
  type RecordingKernel,
  type RecordingKernelOptions,
} from "./recording-kernel.js";
export { parseHostLogLine, type HostLogEntry } from "./host-log-lines.js";
export { parseHandshakeLine, type Handshake } from "../transport/handshake-line.js";
export { kernelHandshake } from "../transport/plugin-environment.js";
export type { ReceivedSpan, ReceivedValue } from "../telemetry/otlp-trace-request.js";
export { formatSpanTree } from "../telemetry/span-tree.js";
