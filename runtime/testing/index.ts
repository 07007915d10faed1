/**
 * harness-tool/testing: what a provider's tests need, on top of the go-plugin host
 * (`harness-tool/host`, re-exported here whole so a test imports one module): `launch()` and its
 * calls, and a recording kernel started on its own, for a test that drives the kernel callbacks
 * without a launched provider.
 */
export * from "../host/index.js";
export { startRecordingKernel, type RecordingKernelOptions } from "../host/recording-kernel.js";
