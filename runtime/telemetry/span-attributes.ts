/**
 * The names the runtime's spans use: OpenTelemetry's RPC semantic conventions for the gRPC calls
 * (rpc.system, rpc.service, rpc.method, rpc.grpc.status_code; span name `service/method`), the
 * kernel's own `pluggableharness.*` keys for the tool (internal/telemetry/attributes.go at
 * f045591: pluggableharness.tool.name, pluggableharness.tool.kind, pluggableharness.outcome), and
 * process.* for child processes. Values are names, ids, enums and codes only: never arguments,
 * outputs, configuration, messages or environment.
 */
import { trace, type Tracer, type TracerProvider } from "@opentelemetry/api";

/** The instrumentation scope of every span the runtime starts. */
export const instrumentationScope = "harness-tool";

let current: { readonly provider: TracerProvider; readonly tracer: Tracer } | undefined;

/**
 * The runtime's tracer, from the API's global provider, so a registered SDK (ours or the
 * author's) receives the spans. Looked up per span, cached per provider: a bundled provider
 * carries its own copy of the API, and the copy the SDK registers through only shares the
 * global, not the tracers handed out before it registered.
 */
export function runtimeTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (current?.provider !== provider) current = { provider, tracer: provider.getTracer(instrumentationScope) };
  return current.tracer;
}

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
  /** The hook point of a DispatchHook, by its agent.hcl name (kernel key and values). */
  hookPoint: "pluggableharness.hook.point",
  /** observe, transform or veto (kernel key and values). */
  subscriberMode: "pluggableharness.subscriber.mode",
  /** A veto's verdict (allow, deny), or how a transform answered (transformed, identity). */
  hookAnswer: "pluggableharness.hook.answer",
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
