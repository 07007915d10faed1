/**
 * What a handler receives besides its input. The context's type follows the tool's declaration:
 * a non-streaming tool's context has no way to emit intermediate events (output_chunk, progress,
 * partial_result), and only a process-backed tool's context can emit exit_status and spawn.
 */
import type { JsonObject, JsonValue, MessageInitShape } from "@bufbuild/protobuf";
import type { Span, Tracer } from "@opentelemetry/api";
import type { ContentBlockSchema } from "../generated/pluggableharness/content/v1/content_pb.js";
import type {
  EventKind,
  RunSessionRequestSchema,
  RunSessionResult,
} from "../generated/pluggableharness/kernel/v1/kernel_pb.js";
import type {
  ContextContributionEventSchema,
  MemoryMutationEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../generated/pluggableharness/event/v1/event_pb.js";
import type { ModelRefSchema } from "../generated/pluggableharness/model/v1/model_pb.js";
import type { RenderTreeSchema } from "../generated/pluggableharness/render/v1/render_pb.js";

/** A RenderTree as a handler may write it: a plain object literal or a created message. */
export type RenderTreeInit = MessageInitShape<typeof RenderTreeSchema>;

/** The call being served, from ToolCall and its CallContext. */
export interface CallInfo {
  /** ToolCall.id. */
  readonly id: string;
  /** ToolCall.tool_name. */
  readonly toolName: string;
  /** CallContext.session_id; echoed on this call's Log and Emit callbacks. */
  readonly sessionId: string;
  /** CallContext.turn_id. */
  readonly turnId: string;
  /** CallContext.working_directory: what relative paths resolve against. */
  readonly workingDirectory: string;
}

/** Log levels a handler may use. */
export type LogLevelName = "trace" | "debug" | "info" | "warn" | "error";

/** Structured logging that reaches the kernel (KernelCallbackService.Log) with the call's session id. */
export interface ToolLogger {
  trace(message: string, fields?: JsonObject): void;
  debug(message: string, fields?: JsonObject): void;
  info(message: string, fields?: JsonObject): void;
  warn(message: string, fields?: JsonObject): void;
  error(message: string, fields?: JsonObject): void;
}

/**
 * The schema_version of an event.v1 payload, in the kernel's form (kernel-callbacks.md, Emit: "1"
 * for event.v1). A Render of the provider receives it back and must keep decoding it.
 */
export const eventSchemaVersion = "1";

/**
 * An event a provider emits, as the kernel's event.v1 message of its kind: the kinds a plugin
 * writes (the kernel alone writes message, plan, apply and hook_error).
 */
export type EmittedEvent =
  | { readonly kind: "tool_call"; readonly payload: MessageInitShape<typeof ToolCallEventSchema> }
  | { readonly kind: "tool_result"; readonly payload: MessageInitShape<typeof ToolResultEventSchema> }
  | {
      readonly kind: "context_contribution";
      readonly payload: MessageInitShape<typeof ContextContributionEventSchema>;
    }
  | {
      readonly kind: "memory_write" | "memory_update" | "memory_delete";
      readonly payload: MessageInitShape<typeof MemoryMutationEventSchema>;
    };

/** The kernel's callbacks (KernelCallbackService over go-plugin broker ID 1), bound to the call. */
export interface KernelCallbacks {
  /** KernelCallbackService.Log with this call's session id. */
  log(level: LogLevelName, message: string, fields?: JsonObject): Promise<void>;
  /**
   * KernelCallbackService.Emit with this call's session id. Secrets are redacted from `payload`.
   * Refused before it reaches the kernel (a ToolError `unknown`) when `kind` is UNSPECIFIED or
   * HOOK_ERROR (the kernel's to synthesize) or `schemaVersion` is empty. For the kernel's own
   * payload types, `emitEvent` encodes them.
   */
  emit(kind: EventKind, payload: Uint8Array, schemaVersion: string): Promise<{ id: string; sequence: bigint }>;
  /**
   * Emit of an event.v1 message: the kind's payload type, encoded, with schema_version
   * `eventSchemaVersion` ("1").
   */
  emitEvent(event: EmittedEvent): Promise<{ id: string; sequence: bigint }>;
  /**
   * KernelCallbackService.RunSession: runs a sub-session of this call's session (its
   * `parent_session_id` is bound to it; naming another is refused) and waits for its result.
   */
  runSession(request: MessageInitShape<typeof RunSessionRequestSchema>): Promise<RunSessionResult>;
  /** KernelCallbackService.CountTokens. */
  countTokens(
    content: readonly MessageInitShape<typeof ContentBlockSchema>[],
    modelRef?: MessageInitShape<typeof ModelRefSchema>,
  ): Promise<{ count: bigint; exact: boolean }>;
}

/** What a handler reports when its call was stopped before it finished (ToolContext.reportCancelled). */
export interface CancelReport {
  /** What had actually happened before the stop landed, e.g. "wrote 3 of 5 files; /a, /b, /c are new". */
  readonly message: string;
  /** Structured detail for the audit log: what was changed, a child's exit, what is left half-done. */
  readonly details?: JsonObject;
}

/** The context of every tool call. */
export interface ToolContext<Config> {
  /** Aborted when the kernel cancels the call, the default timeout passes, or the provider shuts down. */
  readonly signal: AbortSignal;
  readonly call: CallInfo;
  /** The configuration accepted by Configure. */
  readonly config: Config;
  readonly kernel: KernelCallbacks;
  readonly log: ToolLogger;
  /**
   * The call's span (`pluggableharness.tool.v1.ToolService/Invoke`), a child of the kernel's span
   * for the call. Add attributes and events to it; never arguments, outputs or secrets. It does not
   * record (and costs nothing) unless trace export is on (docs/runtime.md#tracing).
   */
  readonly span: Span;
  /**
   * A tracer whose spans are children of the call's span (or of the active span inside it):
   * `ctx.tracer.startActiveSpan("parse", (span) => { ...; span.end(); })`.
   */
  readonly tracer: Tracer;
  /**
   * Resolves `path` against the call's working directory and returns the absolute path; throws a
   * `permission_denied` ToolError when it falls outside the provider's allowed roots.
   */
  resolvePath(path: string): string;
  /**
   * Once the call was stopped (`signal` aborted: the kernel cancelled it, its default timeout
   * passed, or the provider is shutting down), reports what had really happened, so the kernel's
   * audit log holds an honest record of a partial mutation. It goes to the kernel's Log (warn,
   * with the call's session id and `call_id`, `tool`, `stopped_by`, `cancel_report: true` and the
   * details in its fields), which arrives after a cancel; a streaming tool also sends it as a
   * last partial_result, which arrives only where the stream is still open (a timeout, a
   * shutdown): gRPC drops what a cancelled stream sends (docs/runtime.md#the-cancel-report).
   * Resolves once the kernel took the line (or it went to stderr); never rejects. Calling it on a
   * call that was not stopped is a provider bug.
   */
  reportCancelled(report: CancelReport): Promise<void>;
}

/**
 * The context of a tool declared `streaming`.
 *
 * Flow control: every emit sends (queues) its event at once and returns a promise that resolves
 * when the stream has room for more, i.e. when the kernel has read what came before. A handler
 * that emits in a loop awaits it, so a slow kernel slows the loop down instead of the events
 * piling up in the provider's memory; a single emit need not be awaited. The promise never
 * rejects: once the call is cancelled or over, the event is dropped and the promise resolves
 * (check `signal` to stop).
 */
export interface StreamingToolContext<Config> extends ToolContext<Config> {
  /** Emits a progress event; `fractionComplete` is between 0 and 1. Resolves when there is room for more. */
  progress(message: string, fractionComplete?: number): Promise<void>;
  /** Emits a partial_result event. Resolves when there is room for more. */
  partialResult(payload: { readonly [key: string]: JsonValue }): Promise<void>;
  /**
   * Emits output (output_chunk), for any streaming tool: chunks keep their order on the stream;
   * data longer than 64 KiB (`maxOutputChunkBytes`) is split, and while the kernel lags,
   * consecutive output of one stream is merged up to it. Resolves when there is room for more:
   * `await` it in a loop.
   */
  output(stream: "stdout" | "stderr", data: string | Uint8Array): Promise<void>;
}

/** How a child process ended. */
export interface ChildExit {
  /** The exit code; -1 when the process was killed by a signal. */
  readonly exitCode: number;
  /** The signal's name (e.g. "SIGTERM") when the process was killed by one. */
  readonly signal?: string;
}

/** Options of ProcessToolContext.spawn. */
export interface SpawnToolOptions {
  /** Resolved with resolvePath; default: the call's working directory. */
  readonly cwd?: string;
  /** The child's environment; default: the provider's own. */
  readonly env?: { readonly [name: string]: string };
  /** Bytes written to the child's stdin, which is then closed. */
  readonly stdin?: string | Uint8Array;
  /**
   * Whether this child's exit is the call's exit_status (default true). Set false for a helper
   * process when the tool runs several, and report the one exit_status with `exitStatus()`.
   */
  readonly exitStatus?: boolean;
}

/** The context of a tool declared `process_backed`: the exec family. */
export interface ProcessToolContext<Config> extends StreamingToolContext<Config> {
  /** Emits the call's one exit_status. A second call is a provider bug and throws. */
  exitStatus(exitCode: number, signal?: string): void;
  /**
   * Runs a child process without a shell: streams its stdout and stderr as output chunks, emits
   * its exit_status when it ends, and kills it (SIGTERM, then SIGKILL) when the call is cancelled
   * or the provider shuts down. The child never inherits the provider's stdout or stderr. While the
   * kernel reads slower than the child writes, its pipes are not read (the child blocks writing).
   */
  spawn(command: string, args: readonly string[], options?: SpawnToolOptions): Promise<ChildExit>;
}

/** The context of a Preview: side-effect-free by construction, so no emitting and no kernel callbacks. */
export interface PreviewContext<Config> {
  readonly signal: AbortSignal;
  readonly call: CallInfo;
  readonly config: Config;
  resolvePath(path: string): string;
}

/** The context of a Render call. */
export interface RenderContext<Config> {
  readonly signal: AbortSignal;
  readonly config: Config;
}
