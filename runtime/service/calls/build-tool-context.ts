/**
 * The context a handler receives, shaped by its tool's declaration: every tool gets signal, call,
 * config, kernel, log, resolvePath and reportCancelled; a streaming tool also progress,
 * partialResult and output; a
 * process-backed tool also exitStatus and spawn. The methods a declaration does not allow
 * are absent from the context's type; a hand-written JavaScript provider calling them anyway hits a
 * guard that throws and ends the call as a provider bug, so nothing off-shape is ever sent.
 *
 * The kernel's conformance matrix (tool/conformance.md, the summary matrix): output_chunk,
 * progress and partial_result MAY come from any operation declared streaming; exit_status only
 * from a process-backed one (tool/protocol.md, Invoke).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Span, Tracer } from "@opentelemetry/api";
import type { CallInfo, ProcessToolContext, SpawnToolOptions } from "../../provider/tool-context.js";
import { callTracer } from "../../telemetry/call-tracer.js";
import { traceChildProcess } from "../../telemetry/child-process-span.js";
import type { InvokeInFlight } from "./invoke-in-flight.js";
import { bindKernel, bindLogger, type KernelBindingScope } from "../kernel/kernel-bindings.js";
import { reportCancelledOf } from "./cancel-report.js";
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

/** The handler's context for one call (buildToolContext). */
export function buildToolContext(
  call: InvokeInFlight,
  rt: ServiceRuntime,
  entry: ToolEntry,
  accepted: AcceptedConfig,
): ProcessToolContext<unknown> {
  return new HandlerContext(call, rt, entry, accepted);
}

/**
 * One call's context. Everything a call may not use is built when first read, so a call pays
 * for one object. Measured, so kept: `bench/per-call-ab.ts` (echo through the go-plugin v1.8.0 host,
 * 8–10 interleaved rounds, 2 processes per contender) gave a plain object literal with every method
 * built per call 1.09–1.19× this class's CPU per call at 32 concurrent calls in three runs (middle
 * half of the rounds 1.06–1.36×; an A/A of this class, 1.00×), 0.99–1.20× at one call at a time
 * (bench/RESULTS.md, "Handler context: lazy getters against plain construction"). The methods are
 * getters returning functions bound to the call, so `const { resolvePath, progress } = ctx` works
 * as `ctx.resolvePath(...)` does.
 */
class HandlerContext implements ProcessToolContext<unknown> {
  readonly call: CallInfo;
  readonly config: unknown;
  readonly span: Span;
  readonly #call: InvokeInFlight;
  readonly #rt: ServiceRuntime;
  readonly #entry: ToolEntry;
  readonly #roots: AcceptedConfig["roots"];
  #kernel: ProcessToolContext<unknown>["kernel"] | undefined;
  #log: ProcessToolContext<unknown>["log"] | undefined;
  #tracer: Tracer | undefined;
  #resolvePath: ((target: string) => string) | undefined;
  #progress: ProcessToolContext<unknown>["progress"] | undefined;
  #partialResult: ProcessToolContext<unknown>["partialResult"] | undefined;
  #output: ProcessToolContext<unknown>["output"] | undefined;
  #exitStatus: ProcessToolContext<unknown>["exitStatus"] | undefined;
  #spawn: ProcessToolContext<unknown>["spawn"] | undefined;
  #reportCancelled: ProcessToolContext<unknown>["reportCancelled"] | undefined;

  constructor(call: InvokeInFlight, rt: ServiceRuntime, entry: ToolEntry, accepted: AcceptedConfig) {
    this.call = call.info;
    this.config = accepted.config;
    this.span = call.trace.span;
    this.#call = call;
    this.#rt = rt;
    this.#entry = entry;
    this.#roots = accepted.roots;
  }

  get signal(): AbortSignal {
    return this.#call.signal;
  }

  get kernel(): ProcessToolContext<unknown>["kernel"] {
    return (this.#kernel ??= bindKernel(bindingScope(this.#rt, this.#call, this.#entry.name)));
  }

  get log(): ProcessToolContext<unknown>["log"] {
    return (this.#log ??= bindLogger(bindingScope(this.#rt, this.#call, this.#entry.name)));
  }

  get tracer(): Tracer {
    return (this.#tracer ??= callTracer(this.#call.trace));
  }

  get resolvePath(): (target: string) => string {
    if (this.#resolvePath) return this.#resolvePath;
    const workingDirectory = this.call.workingDirectory;
    const boundary = this.#roots === undefined ? { workingDirectory } : { workingDirectory, roots: this.#roots };
    return (this.#resolvePath = (target: string): string => resolveToolPath(target, boundary));
  }

  get reportCancelled(): ProcessToolContext<unknown>["reportCancelled"] {
    return (this.#reportCancelled ??= reportCancelledOf(this.#call, this.#entry.streaming, () => this.kernel));
  }

  get progress(): ProcessToolContext<unknown>["progress"] {
    return (this.#progress ??= this.#entry.streaming
      ? progressOf(this.#call)
      : notDeclared(this.#call, "progress", "streaming"));
  }

  get partialResult(): ProcessToolContext<unknown>["partialResult"] {
    return (this.#partialResult ??= this.#entry.streaming
      ? partialResultOf(this.#call)
      : notDeclared(this.#call, "partialResult", "streaming"));
  }

  get output(): ProcessToolContext<unknown>["output"] {
    return (this.#output ??= this.#entry.streaming
      ? outputOf(this.#call)
      : notDeclared(this.#call, "output", "streaming"));
  }

  get exitStatus(): ProcessToolContext<unknown>["exitStatus"] {
    return (this.#exitStatus ??= this.#entry.processBacked
      ? exitStatusOf(this.#call)
      : notDeclared(this.#call, "exitStatus", "process_backed"));
  }

  get spawn(): ProcessToolContext<unknown>["spawn"] {
    return (this.#spawn ??= this.#entry.processBacked
      ? spawnOf(this.#call, this.#rt, this.#entry, this.resolvePath)
      : notDeclared(this.#call, "spawn", "process_backed"));
  }
}

/** The guard in place of a method the declaration does not allow: calling it ends the call as a provider bug. */
function notDeclared(call: InvokeInFlight, method: string, needs: string): () => never {
  return () =>
    call.providerBug(
      `${method}() was called, but the tool is not declared ${needs}, so the protocol forbids that event`,
    );
}

function progressOf(call: InvokeInFlight): ProcessToolContext<unknown>["progress"] {
  return (message, fractionComplete) => {
    const fraction =
      typeof fractionComplete === "number" && Number.isFinite(fractionComplete)
        ? Math.min(1, Math.max(0, fractionComplete))
        : undefined;
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
    if (stream !== "stdout" && stream !== "stderr")
      call.providerBug(`output() needs "stdout" or "stderr", not ${JSON.stringify(stream)}`);
    const bytes =
      typeof data === "string"
        ? encoder.encode(data)
        : data instanceof Uint8Array
          ? data
          : call.providerBug("output() needs a string or a Uint8Array");
    call.sendOutput(stream, bytes);
    return call.room();
  };
}

function exitStatusOf(call: InvokeInFlight): ProcessToolContext<unknown>["exitStatus"] {
  return (exitCode, signal) => {
    if (!Number.isInteger(exitCode))
      call.providerBug(`exitStatus() needs an integer exit code, not ${String(exitCode)}`);
    call.sendExitStatus(exitCode, signal);
  };
}

function spawnOf(
  call: InvokeInFlight,
  rt: ServiceRuntime,
  entry: ToolEntry,
  resolvePath: (target: string) => string,
): ProcessToolContext<unknown>["spawn"] {
  return async (command: string, args: readonly string[], options: SpawnToolOptions = {}) => {
    if (call.closed) throw new Error(`${entry.name}: spawn() after the call ended`);
    const cwd = resolvePath(options.cwd ?? ".");
    const exit = await traceChildProcess(call.trace, command, () =>
      spawnChild(
        command,
        args,
        {
          cwd,
          ...(options.env ? { env: options.env } : {}),
          ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
        },
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
