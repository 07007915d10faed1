/**
 * One Invoke call's life: input validation, the concurrency gate, the handler with its context,
 * the stream rules, the default timeout, cancellation, output validation, and exactly one
 * terminal event (none after a cancellation).
 *
 * seed: Invoke — exactly one of result or error MUST close the stream; intermediate events only
 * for streaming tools; exit_status at most once, process-backed tools only; output_schema
 * conformance enforced strictly; on cancellation report what happened and never claim success.
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import { context as otelContext } from "@opentelemetry/api";
import type { CallContext } from "../../generated/pluggableharness/common/v1/common_pb.js";
import {
  type InvokeResponse,
  InvokeResponseSchema,
  ToolEventSchema,
  ToolResultSchema,
  OutputStream,
  type ToolCall,
  type ToolError as WireToolError,
  type ToolEvent,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { ToolError } from "../../errors/tool-error.js";
import type { CallInfo } from "../../provider/tool-context.js";
import type { ValueViolation } from "../../schema/value-violation.js";
import type { CallTrace } from "../../telemetry/call-spans.js";
import type { InvokeSink } from "./tool-service-core.js";
import { buildToolContext } from "./build-tool-context.js";
import { normalizeError, stackOf, wireError } from "../../errors/classify-error.js";
import { failureLog } from "./failure-log.js";
import { claimFor, type GateLease } from "./concurrency-gate.js";
import { tooDeep, tooDeepError } from "./argument-depth.js";
import { boundedMessage, reportViolations } from "../../errors/input-error-bounds.js";
import { InvokeOutbox } from "./invoke-outbox.js";
import type { Deadline } from "./deadline-queue.js";
import type { AcceptedConfig, LiveCall, ServiceRuntime, ToolEntry } from "./service-runtime.js";

type EventInit = Exclude<ToolEvent["event"], { case: undefined }>;

/** Why a call was stopped before its handler settled. */
export type StopReason = "cancelled" | "timeout" | "shutdown";

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

/**
 * A result's InvokeResponse as `create` makes it, built directly: every call ends with one, and
 * `create` walks the schema for it (test/runtime/service/result-response.test.ts keeps them equal).
 */
export function resultResponse(payload: JsonObject): InvokeResponse {
  return {
    $typeName: InvokeResponseSchema.typeName,
    event: {
      $typeName: ToolEventSchema.typeName,
      event: { case: "result", value: { $typeName: ToolResultSchema.typeName, payload } },
    },
  };
}

/** The call as the handler sees it. */
export function callInfoOf(call: ToolCall): CallInfo {
  const context: CallContext | undefined = call.callContext;
  return {
    id: call.id,
    toolName: call.toolName,
    sessionId: context?.sessionId ?? "",
    turnId: context?.turnId ?? "",
    workingDirectory: context?.workingDirectory ?? "",
  };
}

/** One Invoke in flight. Create it, then await run(). */
export class InvokeInFlight implements LiveCall {
  readonly info: CallInfo;
  /** The call's span (runtime/telemetry): parent of the handler's spans, children and callbacks. */
  readonly trace: CallTrace;
  readonly #rt: ServiceRuntime;
  readonly #entry: ToolEntry;
  readonly #call: ToolCall;
  readonly #sink: InvokeSink;
  /**
   * A streaming tool's events, in order and at the kernel's pace. A non-streaming call sends one
   * event, its terminal one, straight to the sink: no outbox, queue or listener for it.
   */
  readonly #outbox: InvokeOutbox | undefined;
  readonly #onSendError: (error: unknown) => void;
  readonly #accepted: AcceptedConfig;
  // Created on first use: most handlers never read their signal, and AbortController is costly.
  #controller: AbortController | undefined;
  #abortReason: ToolError | undefined;
  // Made when first asked for (shutdown): most calls end without anyone waiting on them.
  #ended: Promise<void> | undefined;
  #markEnded: (() => void) | undefined;
  /** Set once the stream's last event is decided: afterwards every event is dropped. */
  #closed = false;
  #stopReason: StopReason | undefined;
  #stopGraceMs: number;
  #onStop: (() => void) | undefined;
  #providerBug: string | undefined;
  #exitSent = false;

  constructor(
    rt: ServiceRuntime,
    entry: ToolEntry,
    call: ToolCall,
    sink: InvokeSink,
    accepted: AcceptedConfig,
    trace: CallTrace,
  ) {
    this.trace = trace;
    this.#rt = rt;
    this.#entry = entry;
    this.#call = call;
    this.#sink = sink;
    this.#onSendError = (error) =>
      rt.stderr(`[WARN] harness-tool: could not send an event of ${entry.name}: ${String(error)}`);
    this.#outbox = entry.streaming ? new InvokeOutbox(sink, this.#onSendError) : undefined;
    this.#accepted = accepted;
    this.#stopGraceMs = rt.timings.settleGraceMs;
    this.info = callInfoOf(call);
  }

  /** Resolves once the call's stream is closed (its last event decided). */
  get ended(): Promise<void> {
    this.#ended ??= this.#closed
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.#markEnded = resolve;
        });
    return this.#ended;
  }

  /** The handler's signal: aborted on cancellation, timeout and shutdown. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#abortReason) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  /** Why the call was stopped, once it was: cancelled by the kernel, its timeout, or shutdown. */
  get stopReason(): StopReason | undefined {
    return this.#stopReason;
  }

  /** True once no more events may be sent. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Runs the call to its end; never rejects. */
  async run(): Promise<void> {
    const rt = this.#rt;
    rt.calls.add(this);
    const cancelled = this.#sink.cancelled;
    const onCancel = (): void => this.#stop("cancelled", this.#rt.timings.settleGraceMs);
    let timeout: Deadline | undefined;
    try {
      // seed: cancellation — a call the kernel already closed is not started at all.
      if (cancelled.aborted) return this.#close();
      cancelled.addEventListener("abort", onCancel, { once: true });
      const deep = tooDeep(this.#call);
      if (deep) {
        // The transport left out arguments nested deeper than the runtime accepts (argument-depth.ts).
        return this.#finish("error", tooDeepError(`the arguments of ${this.#entry.name}`, deep));
      }
      const input = (this.#call.arguments ?? {}) as JsonObject;
      const violations = this.#validate(() => this.#entry.implementation.validateInput(input), "input validator");
      if (violations === undefined) return;
      if (violations.length > 0) {
        // invalid_arguments (the kernel's ToolErrorCategory): fed back to the model with the
        // failing paths, bounded however many there are (input-error-bounds.ts).
        const report = reportViolations(violations);
        return this.#finish(
          "error",
          wireError(
            "invalid_arguments",
            boundedMessage(`the arguments of ${this.#entry.name} do not match its input_schema: ${report.summary}`),
            {
              details: report.details,
            },
          ),
        );
      }
      const timeoutMs = this.#entry.timeoutMs;
      // seed: ToolSchema.default_timeout — enforced here too; it covers waiting at the gate.
      if (timeoutMs !== undefined)
        timeout = rt.deadlines.add(timeoutMs, () => this.#stop("timeout", this.#rt.timings.settleGraceMs));

      let lease: GateLease;
      try {
        const granted = rt.gate.acquire(
          claimFor(this.#entry.implementation.declaration, input, this.#call.id),
          () => this.signal,
        );
        lease = granted instanceof Promise ? await granted : granted;
      } catch (error) {
        if (this.#stopReason) return this.#finishStopped();
        return this.#finish("error", this.#classify(error, this.#entry.name));
      }

      const settled = this.#runHandler(input);
      // Whichever comes first: the handler settles (its claim freed then, stopped or not), or the
      // call is stopped.
      const first = await new Promise<Settled | "stopped">((resolve) => {
        void settled.then((value) => {
          lease.release();
          resolve(value);
        });
        if (this.#stopReason) return resolve("stopped");
        this.#onStop = () => resolve("stopped");
      });
      if (first !== "stopped") return this.#finishSettled(first);
      // Stopped: give the handler a short grace to settle and report what really happened.
      let graceTimer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<"grace-over">((resolve) => {
        graceTimer = setTimeout(() => resolve("grace-over"), this.#stopGraceMs);
      });
      const after = await Promise.race([settled, graceOver]);
      clearTimeout(graceTimer);
      // A handler that ignores its signal keeps its claim: conflicting calls fail instead of waiting.
      if (after === "grace-over") lease.orphan();
      return this.#finishStopped();
    } catch (error) {
      // A runtime bug must still end the stream properly (stackOf and normalizeError never throw).
      this.#rt.stderr(`[ERROR] harness-tool: Invoke ${this.#entry.name} failed inside the runtime: ${stackOf(error)}`);
      if (!this.#closed && this.#stopReason !== "cancelled")
        this.#finish("error", normalizeError(error, { context: "runtime" }));
    } finally {
      if (timeout) rt.deadlines.cancel(timeout);
      cancelled.removeEventListener("abort", onCancel);
      this.#close();
      rt.calls.delete(this);
      // The stream closes when run() resolves: first every queued event reaches the transport
      // (at the kernel's pace), unless the kernel went away.
      if (this.#outbox) await this.#outbox.flushed();
    }
  }

  /** LiveCall: shutdown stops the call with a terminal `cancelled`. */
  stopForShutdown(graceMs: number): void {
    this.#stop("shutdown", graceMs);
  }

  #stop(reason: StopReason, graceMs: number): void {
    if (this.#closed || this.#stopReason) return;
    this.#stopReason = reason;
    this.#stopGraceMs = Math.min(graceMs, this.#stopGraceMs);
    const why =
      reason === "timeout"
        ? new ToolError(
            "timeout",
            `${this.#entry.name} did not finish within its default timeout of ${this.#entry.timeoutMs} ms`,
            { retryable: true },
          )
        : reason === "shutdown"
          ? new ToolError("cancelled", "the provider is shutting down", { retryable: true })
          : new ToolError("cancelled", "the kernel cancelled the call");
    this.#abortReason = why;
    this.#controller?.abort(why);
    this.#onStop?.();
  }

  #runHandler(input: JsonObject): Promise<Settled> {
    const context = buildToolContext(this, this.#rt, this.#entry, this.#accepted);
    const handler = this.#entry.implementation.handler as (input: unknown, context: unknown) => unknown;
    // Promise.resolve().then(): a handler that throws synchronously is caught like a rejection.
    // Inside the call's context: the handler's own active spans nest under the call's.
    return Promise.resolve()
      .then(() => otelContext.with(this.trace.context, handler, undefined, input, context))
      .then(
        (value): Settled => ({ ok: true, value }),
        (error: unknown): Settled => ({ ok: false, error }),
      );
  }

  /** Runs a validator; a validator that throws is a provider bug, reported as `unknown`. */
  #validate(run: () => readonly ValueViolation[], what: string): readonly ValueViolation[] | undefined {
    try {
      return run();
    } catch (error) {
      this.#finish("error", this.#classify(error, `${this.#entry.name}: the ${what} threw`));
      return undefined;
    }
  }

  #finishSettled(settled: Settled): void {
    const name = this.#entry.name;
    if (this.#providerBug !== undefined) {
      return this.#finish(
        "error",
        wireError("unknown", `provider bug in ${name}: ${this.#providerBug}`, {
          details: { provider_bug: this.#providerBug },
        }),
      );
    }
    if (!settled.ok) {
      // A thrown ToolError keeps its category; anything else is unknown with the raw error.
      return this.#finish("error", this.#classify(settled.error, `${name} failed`));
    }
    // seed: exit_status — process-backed operations MUST emit it before their result.
    if (this.#entry.processBacked && !this.#exitSent) {
      const bug =
        "the tool is process-backed but returned its result without an exit_status (call context.exitStatus or use context.spawn)";
      return this.#finish(
        "error",
        wireError("unknown", `provider bug in ${name}: ${bug}`, { details: { provider_bug: bug } }),
      );
    }
    const payload = settled.value;
    const violations = this.#validate(() => this.#entry.implementation.validateOutput(payload), "output validator");
    if (violations === undefined) return;
    if (violations.length > 0 || !isPlainObject(payload)) {
      // seed: output_schema conformance is strict — a non-conforming result is never sent.
      const report = reportViolations(
        violations.length > 0 ? violations : [{ path: "", message: "must be an object" }],
      );
      return this.#finish(
        "error",
        wireError(
          "unknown",
          boundedMessage(`provider bug in ${name}: the result does not match its output_schema: ${report.summary}`),
          {
            details: report.details,
          },
        ),
      );
    }
    this.#finish("result", { payload });
  }

  #finishStopped(): void {
    const reason = this.#stopReason;
    if (reason === "cancelled") {
      // seed: cancellation — close without a terminal event; not a failure, so nothing is logged.
      return this.#close();
    }
    this.#finish("error", this.#classify(this.#abortReason, this.#entry.name));
  }

  /** The wire ToolError of a failure; a stack goes to the kernel's log, never to the event. */
  #classify(error: unknown, context: string): WireToolError {
    return normalizeError(error, {
      context,
      log: failureLog(this.#rt.stderr, { tool: this.#entry.name, call_id: this.#call.id }),
    });
  }

  /** Sends the terminal event, once; later calls do nothing. */
  #finish(kind: "result", value: { payload: JsonObject }): void;
  #finish(kind: "error", value: WireToolError): void;
  #finish(kind: "result" | "error", value: { payload: JsonObject } | WireToolError): void {
    if (this.#closed) return;
    this.#send({ case: kind, value } as EventInit);
    this.#close();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#markEnded?.();
  }

  #send(event: EventInit): void {
    if (this.#outbox) return this.#outbox.event(event);
    try {
      this.#sink.send(
        event.case === "result"
          ? resultResponse((event.value as { payload: JsonObject }).payload)
          : create(InvokeResponseSchema, { event: { event } }),
      );
    } catch (error) {
      this.#onSendError(error);
    }
  }

  // The emitting half, used by the handler's context (build-tool-context.ts).

  /** Marks a stream-rule violation: the call ends with an `unknown` provider-bug error. */
  providerBug(message: string): never {
    this.#providerBug ??= message;
    throw new TypeError(`${this.#entry.name}: ${message}`);
  }

  /** Sends an intermediate event unless the stream is closed. */
  sendIntermediate(event: EventInit): void {
    if (this.#closed) return;
    this.#send(event);
  }

  /** Sends output bytes, in order (merged or split at the chunk limit). */
  sendOutput(stream: "stdout" | "stderr", data: Uint8Array): void {
    if (this.#closed) return;
    this.#outbox?.output(stream === "stdout" ? OutputStream.STDOUT : OutputStream.STDERR, data);
  }

  /**
   * Undefined while producers may go on; otherwise a promise that resolves when the kernel has
   * read enough (or the stream is gone). A child's pipes pause on it.
   */
  outputBackpressure(): Promise<void> | undefined {
    return this.#outbox === undefined || this.#outbox.hasRoom ? undefined : this.#outbox.room();
  }

  /**
   * What the handler's emits return: resolves when there is room for more. Once the call is
   * stopped or closed nothing waits, but the promise still resolves only after a macrotask, so a
   * handler looping on `await ctx.output()` without checking its signal cannot starve the event loop.
   */
  room(): Promise<void> {
    if (this.#closed || this.#stopReason) return new Promise((resolve) => setImmediate(resolve));
    return this.#outbox ? this.#outbox.room() : Promise.resolve();
  }

  /** Sends the exit_status; a second one is a provider bug. */
  sendExitStatus(exitCode: number, signal: string | undefined): void {
    if (this.#exitSent) this.providerBug("exit_status was emitted twice (at most once per call)");
    this.#exitSent = true;
    if (this.#closed) return;
    this.#send({ case: "exitStatus", value: { exitCode, ...(signal ? { signal: String(signal) } : {}) } } as EventInit);
  }
}
