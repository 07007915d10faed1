/**
 * The names the runtime's spans use: OpenTelemetry's RPC semantic conventions for the gRPC calls
 * (rpc.system, rpc.service, rpc.method, rpc.grpc.status_code; span name `service/method`), the
 * kernel's own `pluggableharness.*` keys for the tool (internal/telemetry/attributes.go at
 * f045591: pluggableharness.tool.name, pluggableharness.tool.kind, pluggableharness.outcome), and
 * process.* for child processes. Values are names, ids, enums and codes only: never arguments,
 * outputs, configuration, messages or environment.
 */
import { trace, type Tracer } from "@opentelemetry/api";

/** The instrumentation scope of every span the runtime starts. */
export const instrumentationScope = "harness-tool";

/** The runtime's tracer: the API's global, so a registered SDK (ours or the author's) receives the spans. */
export const runtimeTracer: Tracer = trace.getTracer(instrumentationScope);

/** Attribute keys. */
export const attributeKeys = {
  rpcSystem: "rpc.system",
  rpcService: "rpc.service",
  rpcMethod: "rpc.method",
  grpcStatusCode: "rpc.grpc.status_code",
  /** The tool a call concerns (kernel key). */
  toolName: "pluggableharness.tool.name",
  /** resource, data_source or interactive (kernel key and values). */
  toolKind: "pluggableharness.tool.kind",
  /** read_only, low, moderate, high or critical. */
  toolRisk: "pluggableharness.tool.risk",
  /** ToolCall.id: unbounded, so a span attribute only, never a metric's. */
  callId: "pluggableharness.tool.call_id",
  /** ok, error (a ToolError or a failed status) or cancelled (the kernel closed the stream). */
  outcome: "pluggableharness.outcome",
  /** The ToolError's category (`not_found`, `timeout`, ...) or the status code's name. */
  errorType: "error.type",
  /** A child process: the command's file name, without its directory or arguments. */
  processName: "process.executable.name",
  processExitCode: "process.exit.code",
  /** The signal that ended a child process (SIGTERM, SIGKILL, ...). */
  processSignal: "pluggableharness.process.signal",
} as const;

/** pluggableharness.outcome values. */
export type CallOutcome = "ok" | "error" | "cancelled";

/** gRPC status code names by number, for error.type. */
export const grpcCodeNames: readonly string[] = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
];
