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
import type { Tracer } from "@opentelemetry/api";
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

/** Builds the handler's context for one call. */
export function buildToolContext(call: InvokeInFlight, rt: ServiceRuntime, entry: ToolEntry, accepted: AcceptedConfig): ProcessToolContext<unknown> {
  const info = call.info;
  const boundary =
    accepted.roots === undefined ? { workingDirectory: info.workingDirectory } : { workingDirectory: info.workingDirectory, roots: accepted.roots };
  const resolvePath = (target: string): string => resolveToolPath(target, boundary);
  let kernel: ProcessToolContext<unknown>["kernel"] | undefined;
  let log: ProcessToolContext<unknown>["log"] | undefined;
  let tracer: Tracer | undefined;
  const notDeclared = (method: string, needs: string) => (): never =>
    call.providerBug(`${method}() was called, but the tool is not declared ${needs}, so the protocol forbids that event`);

  const progress = entry.streaming
    ? (message: string, fractionComplete?: number): Promise<void> => {
        const fraction = typeof fractionComplete === "number" && Number.isFinite(fractionComplete) ? Math.min(1, Math.max(0, fractionComplete)) : undefined;
        call.sendIntermediate({
          case: "progress",
          value: { message: String(message), ...(fraction !== undefined ? { fractionComplete: fraction } : {}) },
        } as never);
        return call.room();
      }
    : notDeclared("progress", "streaming");

  const partialResult = entry.streaming
    ? (payload: JsonObject): Promise<void> => {
        if (!isPlainRecord(payload)) call.providerBug("partialResult() needs a plain JSON object");
        call.sendIntermediate({ case: "partialResult", value: { payload } } as never);
        return call.room();
      }
    : notDeclared("partialResult", "streaming");

  const output = entry.processBacked
    ? (stream: "stdout" | "stderr", data: string | Uint8Array): Promise<void> => {
        if (stream !== "stdout" && stream !== "stderr") call.providerBug(`output() needs "stdout" or "stderr", not ${JSON.stringify(stream)}`);
        const bytes =
          typeof data === "string" ? encoder.encode(data) : data instanceof Uint8Array ? data : call.providerBug("output() needs a string or a Uint8Array");
        call.sendOutput(stream, bytes);
        return call.room();
      }
    : notDeclared("output", "process_backed");

  const exitStatus = entry.processBacked
    ? (exitCode: number, signal?: string): void => {
        if (!Number.isInteger(exitCode)) call.providerBug(`exitStatus() needs an integer exit code, not ${String(exitCode)}`);
        call.sendExitStatus(exitCode, signal);
      }
    : notDeclared("exitStatus", "process_backed");

  const spawn = entry.processBacked
    ? async (command: string, args: readonly string[], options: SpawnToolOptions = {}) => {
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
      }
    : notDeclared("spawn", "process_backed");

  return {
    get signal() {
      return call.signal;
    },
    call: info,
    config: accepted.config,
    get kernel() {
      return (kernel ??= bindKernel(bindingScope(rt, call, entry.name)));
    },
    get log() {
      return (log ??= bindLogger(bindingScope(rt, call, entry.name)));
    },
    span: call.trace.span,
    get tracer() {
      return (tracer ??= callTracer(call.trace));
    },
    resolvePath,
    progress,
    partialResult,
    output,
    exitStatus,
    spawn,
  };
}
