/**
 * The context a hook handler receives: the call's signal and hook info, the accepted config, the
 * kernel's Log and Emit bound like a tool call's (kernel-bindings.ts, through the service's kernel
 * exit), the call's span and a tracer for children.
 */
import type { Tracer } from "@opentelemetry/api";
import type { HookCallInfo, HookContext, HookKernelCallbacks } from "../../provider/hook-subscriptions.js";
import type { ToolLogger } from "../../provider/tool-context.js";
import type { CallTrace } from "../../telemetry/call-spans.js";
import { callTracer } from "../../telemetry/call-tracer.js";
import { bindKernel, bindLogger, type KernelBindingScope } from "../kernel/kernel-bindings.js";
import type { ServiceRuntime } from "../calls/service-runtime.js";

/** Builds the context of one hook call; the bindings are made on first use. */
export function buildHookContext(
  rt: ServiceRuntime,
  info: HookCallInfo,
  config: unknown,
  signal: AbortSignal,
  trace: CallTrace,
): HookContext<unknown> {
  const scope: KernelBindingScope = {
    kernel: () => rt.kernel(),
    stderr: rt.stderr,
    logger: `${rt.provider.name}.hook.${info.point}`,
    sessionId: info.sessionId,
    trace,
    signal,
  };
  let kernel: HookKernelCallbacks | undefined;
  let log: ToolLogger | undefined;
  let tracer: Tracer | undefined;
  return {
    signal,
    hook: info,
    config,
    get kernel() {
      if (!kernel) {
        const bound = bindKernel(scope);
        kernel = { log: bound.log, emit: bound.emit, emitEvent: bound.emitEvent };
      }
      return kernel;
    },
    get log() {
      return (log ??= bindLogger(scope));
    },
    span: trace.span,
    get tracer() {
      return (tracer ??= callTracer(trace));
    },
  };
}
