/**
 * The context a handler receives, shaped by its tool's declaration: every tool gets signal, call,
 * config, kernel, log and resolvePath; a streaming tool also progress and partialResult; a
 * process-backed tool also output, exitStatus and spawn. The methods a declaration does not allow
 * are absent from the context's type; a hand-written JavaScript provider calling them anyway hits a
 * guard that throws and ends the call as a provider bug, so nothing off-shape is ever sent.
 *
 * seed: Invoke — output_chunk, progress and partial_result only when streaming; exit_status only
 * for process-backed tools.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ProcessToolContext, SpawnToolOptions } from "../../provider/tool-context.js";
import { callTracer } from "../../telemetry/call-tracer.js";
import { traceChildProcess } from "../../telemetry/child-process-span.js";
import type { InvokeInFlight } from "./invoke-in-flight.js";
import { bindKernel, bindLogger, type KernelBindingScope } from "../kernel/kernel-bindings.js";
import { resolveToolPath } from "./resolve-path.js";
import type { AcceptedConfig, ServiceRuntime, ToolEntry } from "./service-runtime.js";
import { spawnChild } from "../process/spawn-child.js";

const encoder = new TextEncoder();

function isPlainRecord(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The scope of the call's kernel bindings. */
export function bindingScope(rt: ServiceRuntime, call: InvokeInFlight, toolName: string): KernelBindingScope {
  return {
    kernel: () => rt.kernel(),
    stderr: rt.stderr,
    logger: `${rt.provider.name}.${toolName}`,
    sessionId: call.info.sessionId,
    trace: call.trace,
    get signal() {
      return call.signal;
    },
  };
}

/**
 * The handler's context for one call, every member built when the call starts. The methods are plain
 * functions closed over the call, so `const { resolvePath, progress } = ctx` works as
 * `ctx.resolvePath(...)` does.
 */
export function buildToolContext(call: InvokeInFlight, rt: ServiceRuntime, entry: ToolEntry, accepted: AcceptedConfig): ProcessToolContext<unknown> {
  const info = call.info;
  const workingDirectory = info.workingDirectory;
  const boundary = accepted.roots === undefined ? { workingDirectory } : { workingDirectory, roots: accepted.roots };
  const resolvePath = (target: string): string => resolveToolPath(target, boundary);
  let kernel: ProcessToolContext<unknown>["kernel"] | undefined;
  let log: ProcessToolContext<unknown>["log"] | undefined;
  let tracer: ProcessToolContext<unknown>["tracer"] | undefined;
  return {
    // The call's signal is created on first read (invoke-in-flight.ts), so this one stays a getter.
    get signal() {
      return call.signal;
    },
    call: info,
    config: accepted.config,
    span: call.trace.span,
    get kernel() {
      return (kernel ??= bindKernel(bindingScope(rt, call, entry.name)));
    },
    get log() {
      return (log ??= bindLogger(bindingScope(rt, call, entry.name)));
    },
    get tracer() {
      return (tracer ??= callTracer(call.trace));
    },
    resolvePath,
    progress: entry.streaming ? progressOf(call) : notDeclared(call, "progress", "streaming"),
    partialResult: entry.streaming ? partialResultOf(call) : notDeclared(call, "partialResult", "streaming"),
    output: entry.processBacked ? outputOf(call) : notDeclared(call, "output", "process_backed"),
    exitStatus: entry.processBacked ? exitStatusOf(call) : notDeclared(call, "exitStatus", "process_backed"),
    spawn: entry.processBacked ? spawnOf(call, rt, entry, resolvePath) : notDeclared(call, "spawn", "process_backed"),
  };
}

/** The guard in place of a method the declaration does not allow: calling it ends the call as a provider bug. */
function notDeclared(call: InvokeInFlight, method: string, needs: string): () => never {
  return () => call.providerBug(`${method}() was called, but the tool is not declared ${needs}, so the protocol forbids that event`);
}

function progressOf(call: InvokeInFlight): ProcessToolContext<unknown>["progress"] {
  return (message, fractionComplete) => {
    const fraction = typeof fractionComplete === "number" && Number.isFinite(fractionComplete) ? Math.min(1, Math.max(0, fractionComplete)) : undefined;
    call.sendIntermediate({
      case: "progress",
      value: { message: String(message), ...(fraction !== undefined ? { fractionComplete: fraction } : {}) },
    } as never);
    return call.room();
  };
}

function partialResultOf(call: InvokeInFlight): ProcessToolContext<unknown>["partialResult"] {
  return (payload) => {
    if (!isPlainRecord(payload)) call.providerBug("partialResult() needs a plain JSON object");
    call.sendIntermediate({ case: "partialResult", value: { payload } } as never);
    return call.room();
  };
}

function outputOf(call: InvokeInFlight): ProcessToolContext<unknown>["output"] {
  return (stream, data) => {
    if (stream !== "stdout" && stream !== "stderr") call.providerBug(`output() needs "stdout" or "stderr", not ${JSON.stringify(stream)}`);
    const bytes =
      typeof data === "string" ? encoder.encode(data) : data instanceof Uint8Array ? data : call.providerBug("output() needs a string or a Uint8Array");
    call.sendOutput(stream, bytes);
    return call.room();
  };
}

function exitStatusOf(call: InvokeInFlight): ProcessToolContext<unknown>["exitStatus"] {
  return (exitCode, signal) => {
    if (!Number.isInteger(exitCode)) call.providerBug(`exitStatus() needs an integer exit code, not ${String(exitCode)}`);
    call.sendExitStatus(exitCode, signal);
  };
}

function spawnOf(call: InvokeInFlight, rt: ServiceRuntime, entry: ToolEntry, resolvePath: (target: string) => string): ProcessToolContext<unknown>["spawn"] {
  return async (command: string, args: readonly string[], options: SpawnToolOptions = {}) => {
    if (call.closed) throw new Error(`${entry.name}: spawn() after the call ended`);
    const cwd = resolvePath(options.cwd ?? ".");
    const exit = await traceChildProcess(call.trace, command, () =>
      spawnChild(
        command,
        args,
        { cwd, ...(options.env ? { env: options.env } : {}), ...(options.stdin !== undefined ? { stdin: options.stdin } : {}) },
        {
          signal: call.signal,
          output: (stream, data) => {
            call.sendOutput(stream, data);
            return call.outputBackpressure();
          },
          registry: rt.children,
          killGraceMs: rt.timings.killGraceMs,
        },
      ),
    );
    if (options.exitStatus !== false) call.sendExitStatus(exit.exitCode, exit.signal);
    return exit;
  };
}
