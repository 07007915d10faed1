/**
 * ToolContext.kernel and ToolContext.log for one call: the kernel's callbacks with the call's
 * session id bound. Nothing is redacted here: `scope.kernel` and `scope.stderr` are the service's
 * kernel and stderr exits (secret-exits.ts). Logging never fails a call: without a kernel
 * connection, or when the kernel's Log fails, the line goes to stderr instead.
 *
 * seed: Invoke — session_id/turn_id are what the plugin echoes back on its own Emit/Log calls.
 * docs/transport.md#what-the-provider-does-in-order (step 2) — stderr lines in go-plugin's JSON
 * form (@level, @message, @timestamp) keep their level on the host.
 * docs/runtime.md#the-error-surface — every failure is classified: a callback the kernel does not
 * implement is `execution_failed`, not the `unknown` of an unexpected exception.
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  CountTokensRequestSchema,
  EmitRequestSchema,
  LogRequestSchema,
  type EventKind,
} from "../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { LogLevel } from "../../generated/pluggableharness/log/v1/log_pb.js";
import { GrpcCode } from "../../errors/rpc-status-error.js";
import { ToolError } from "../../errors/tool-error.js";
import type { KernelClient } from "./kernel-client.js";
import { boundRunSessionRequest, checkEmitRequest, encodeEvent } from "./callback-requests.js";
import {
  eventSchemaVersion,
  type KernelCallbacks,
  type LogLevelName,
  type ToolLogger,
} from "../../provider/tool-context.js";
import { traceCallback } from "../../telemetry/callback-span.js";
import type { CallTrace } from "../../telemetry/call-spans.js";
import type { TraceHeaders } from "../../telemetry/trace-headers.js";

const wireLevels: { readonly [L in LogLevelName]: LogLevel } = {
  trace: LogLevel.TRACE,
  debug: LogLevel.DEBUG,
  info: LogLevel.INFO,
  warn: LogLevel.WARN,
  error: LogLevel.ERROR,
};

/** What the bindings of one call need. */
export interface KernelBindingScope {
  /** Undefined until the transport has connected to the kernel's broker. */
  readonly kernel: () => KernelClient | undefined;
  readonly stderr: (line: string) => void;
  /** LogEntry.logger, e.g. the provider's name and the tool's. */
  readonly logger: string;
  readonly sessionId: string;
  /** The call's span: each callback is its child, and carries its traceparent to the kernel. */
  readonly trace?: CallTrace;
  /** Aborts the call's RunSession and CountTokens when the call ends. */
  readonly signal: AbortSignal;
}

/**
 * A timestamp as go-plugin's host parses `@timestamp` (layout 2006-01-02T15:04:05.000000Z07:00:
 * six fractional digits; a line whose timestamp does not parse is logged verbatim at debug level).
 */
export function hostTimestamp(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * A go-plugin JSON log line for stderr (docs/transport.md#what-the-provider-does-in-order, step 2).
 * Extra fields become host log fields.
 */
export function stderrLogLine(level: LogLevelName, message: string, fields: JsonObject | undefined): string {
  const line = { "@level": level, "@message": message, "@timestamp": hostTimestamp(), ...(fields ?? {}) };
  return JSON.stringify(line);
}

function notConnected(): Error {
  return new Error("the kernel's callback service is not connected (no broker connection on ID 1)");
}

/** The ToolLogger of one call: fire and forget, never throws, never rejects. */
export function bindLogger(scope: KernelBindingScope): ToolLogger {
  const send = (level: LogLevelName, message: string, fields?: JsonObject): void => {
    void sendLog(scope, level, message, fields);
  };
  return {
    trace: (m, f) => send("trace", m, f),
    debug: (m, f) => send("debug", m, f),
    info: (m, f) => send("info", m, f),
    warn: (m, f) => send("warn", m, f),
    error: (m, f) => send("error", m, f),
  };
}

async function sendLog(
  scope: KernelBindingScope,
  level: LogLevelName,
  message: unknown,
  fields: JsonObject | undefined,
): Promise<void> {
  const text = typeof message === "string" ? message : String(message);
  const kernel = scope.kernel();
  try {
    if (!kernel) throw notConnected();
    const request = create(LogRequestSchema, {
      sessionId: scope.sessionId,
      entry: {
        level: wireLevels[level] ?? LogLevel.INFO,
        logger: scope.logger,
        message: text,
        ...(fields !== undefined ? { fields } : {}),
        time: timestampFromDate(new Date()),
      },
    });
    await traceCallback(scope.trace, "Log", (headers) => kernel.log(request, headers));
  } catch {
    // A log line must never fail the call: keep it on stderr, where the host logs it too.
    try {
      scope.stderr(
        stderrLogLine(level, text, { ...(fields ?? {}), logger: scope.logger, session_id: scope.sessionId }),
      );
    } catch {
      // stderr itself is gone (EPIPE): nothing left to tell.
    }
  }
}

/** A callback whose failure the handler sees. */
type ReturningCallback = "Emit" | "RunSession" | "CountTokens";

/**
 * The kernel answering UNIMPLEMENTED (at f045591 it serves Log only) becomes a ToolError the
 * handler may catch and, uncaught, the call's terminal error: the call cannot do what it needs
 * from this kernel, and asking again will not change that. Any other failure is passed on as is.
 */
function kernelRefusal(callback: ReturningCallback, failure: unknown): unknown {
  const { code, details } = (typeof failure === "object" && failure !== null ? failure : {}) as {
    code?: unknown;
    details?: unknown;
  };
  if (code !== GrpcCode.UNIMPLEMENTED) return failure;
  const message = typeof details === "string" ? details : failure instanceof Error ? failure.message : String(failure);
  return new ToolError("execution_failed", `the kernel does not implement ${callback} (UNIMPLEMENTED): ${message}`, {
    details: { callback, code: "UNIMPLEMENTED", message },
    cause: failure,
  });
}

/** Runs one returning callback in its span, turning the kernel's refusal into a ToolError. */
async function callKernel<T>(
  scope: KernelBindingScope,
  callback: ReturningCallback,
  call: (trace: TraceHeaders | undefined) => Promise<T>,
): Promise<T> {
  try {
    return await traceCallback(scope.trace, callback, call);
  } catch (failure) {
    throw kernelRefusal(callback, failure);
  }
}

/** The KernelCallbacks of one call. */
export function bindKernel(scope: KernelBindingScope): KernelCallbacks {
  const client = (): KernelClient => {
    const kernel = scope.kernel();
    if (!kernel) throw notConnected();
    return kernel;
  };
  const emit = async (kind: EventKind, payload: Uint8Array, schemaVersion: string) => {
    checkEmitRequest(kind, schemaVersion);
    const request = create(EmitRequestSchema, { sessionId: scope.sessionId, kind, schemaVersion, payload });
    const result = await callKernel(scope, "Emit", (trace) => client().emit(request, trace));
    return { id: result.id, sequence: result.sequence };
  };
  return {
    log: (level, message, fields) => sendLog(scope, level, message, fields),
    emit,
    async emitEvent(event) {
      const { kind, payload } = encodeEvent(event);
      return emit(kind, payload, eventSchemaVersion);
    },
    async runSession(request) {
      const bound = boundRunSessionRequest(request, scope.sessionId);
      return callKernel(scope, "RunSession", (trace) => client().runSession(bound, scope.signal, trace));
    },
    async countTokens(content, modelRef) {
      const request = create(CountTokensRequestSchema, { content: [...content], ...(modelRef ? { modelRef } : {}) });
      const result = await callKernel(scope, "CountTokens", (trace) =>
        client().countTokens(request, scope.signal, trace),
      );
      return { count: result.count, exact: result.exact };
    },
  };
}
