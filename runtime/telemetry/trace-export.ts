/**
 * Trace export, off unless the standard OpenTelemetry variables ask for it (they reach a provider
 * through the kernel's operator extras, ExtraEnv): OTEL_TRACES_EXPORTER=otlp, or an
 * OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. Only then is the official SDK
 * imported (sdk-trace-node, resources and the OTLP exporter of OTEL_EXPORTER_OTLP_PROTOCOL:
 * http/protobuf by default, http/json or grpc), from the provider's own node_modules: they are
 * optional peer dependencies, never bundled, so a provider that does not export carries none of
 * them. The resource is the SDK's defaults, then the provider's name and version as service.name
 * and service.version, then OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the kernel's
 * producer stamp), later sources winning. Spans go through a batch processor (OTEL_BSP_*),
 * flushed when the provider shuts down within the host's grace period, through the span exit
 * (redacting-span-exporter.ts), which redacts the configured secrets once serve() hands it the
 * service's redaction.
 */
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { redactingSpanExporter, type RedactText } from "./redacting-span-exporter.js";

/** What the environment asks for. */
export type ExportRequest =
  | { readonly export: false; readonly warning?: string }
  | { readonly export: true; readonly protocol: "http/protobuf" | "http/json" | "grpc" };

/** The exporter package of each OTLP protocol; each exports an `OTLPTraceExporter` reading the OTEL_EXPORTER_OTLP_* variables. */
const exporterPackages = {
  "http/protobuf": "@opentelemetry/exporter-trace-otlp-proto",
  "http/json": "@opentelemetry/exporter-trace-otlp-http",
  grpc: "@opentelemetry/exporter-trace-otlp-grpc",
} as const;

/** The SDK packages an exporting provider needs beside it (docs/runtime.md#tracing). */
export const sdkPackages = ["@opentelemetry/sdk-trace-node", "@opentelemetry/resources"] as const;

function set(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

/** Reads the standard variables; pure, so the rules are tested without loading anything. */
export function exportRequest(env: NodeJS.ProcessEnv): ExportRequest {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return { export: false };
  const exporters = set(env.OTEL_TRACES_EXPORTER)
    ? env.OTEL_TRACES_EXPORTER.split(",")
        .map((name) => name.trim().toLowerCase())
        .filter((name) => name !== "")
    : undefined;
  const endpoint = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (exporters === undefined && !endpoint) return { export: false };
  if (exporters !== undefined && !exporters.includes("otlp")) {
    const others = exporters.filter((name) => name !== "none");
    if (others.length === 0) return { export: false };
    return {
      export: false,
      warning: `OTEL_TRACES_EXPORTER=${env.OTEL_TRACES_EXPORTER} is not supported by harness-tool providers (only otlp: a console exporter would write to stdout, which belongs to go-plugin); traces are not exported`,
    };
  }
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    "http/protobuf"
  ).trim();
  if (protocol !== "http/protobuf" && protocol !== "http/json" && protocol !== "grpc") {
    return {
      export: false,
      warning: `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not an OTLP protocol (http/protobuf, http/json or grpc); traces are not exported`,
    };
  }
  return { export: true, protocol };
}

/** The batch span processor's settings from the standard OTEL_BSP_* variables (the SDK leaves them to its caller). */
export function batchSettings(env: NodeJS.ProcessEnv): {
  scheduledDelayMillis?: number;
  exportTimeoutMillis?: number;
  maxQueueSize?: number;
  maxExportBatchSize?: number;
} {
  const settings: { [key: string]: number } = {};
  for (const [variable, key] of [
    ["OTEL_BSP_SCHEDULE_DELAY", "scheduledDelayMillis"],
    ["OTEL_BSP_EXPORT_TIMEOUT", "exportTimeoutMillis"],
    ["OTEL_BSP_MAX_QUEUE_SIZE", "maxQueueSize"],
    ["OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "maxExportBatchSize"],
  ] as const) {
    const value = Number(env[variable]);
    if (set(env[variable]) && Number.isInteger(value) && value > 0) settings[key] = value;
  }
  return settings;
}

/** Export in progress: flush and stop it. */
export interface TraceExport {
  /** Every span exported from now on passes `text` (the service's redactText): the span exit. */
  redactWith(text: RedactText): void;
  /** Ends every queued span's export; resolves within `timeoutMs` even when the collector hangs. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** Who is exporting: the resource's service.name and service.version. */
export interface ExportIdentity {
  readonly name: string;
  readonly version: string;
}

// A specifier in a variable: bundlers leave the import to run time, so the SDK never enters a bundle.
async function importOptional<T>(specifier: string): Promise<T> {
  return (await import(specifier)) as T;
}

type SdkTraceNode = typeof import("@opentelemetry/sdk-trace-node");
type Resources = typeof import("@opentelemetry/resources");
type OtlpExporterModule = { OTLPTraceExporter: new () => import("@opentelemetry/sdk-trace-node").SpanExporter };

function isMissingModule(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

/**
 * Starts export when the environment asks for it; resolves undefined otherwise (nothing loaded).
 * Never throws: a missing package or a broken configuration is one warning line, and the provider
 * serves on without export.
 */
export async function startTraceExport(
  env: NodeJS.ProcessEnv,
  identity: ExportIdentity,
  warn: (line: string) => void,
): Promise<TraceExport | undefined> {
  const request = exportRequest(env);
  if (!request.export) {
    if (request.warning) warn(`[WARN] harness-tool: ${request.warning}`);
    return undefined;
  }
  const exporterPackage = exporterPackages[request.protocol];
  let modules: [SdkTraceNode, Resources, OtlpExporterModule];
  try {
    modules = await Promise.all([
      importOptional<SdkTraceNode>(sdkPackages[0]),
      importOptional<Resources>(sdkPackages[1]),
      importOptional<OtlpExporterModule>(exporterPackage),
    ]);
  } catch (error) {
    const why = isMissingModule(error)
      ? `it needs ${[...sdkPackages, exporterPackage].join(", ")} installed beside the provider (npm install ${[...sdkPackages, exporterPackage].join(" ")})`
      : `the OpenTelemetry SDK failed to load: ${error instanceof Error ? error.message : String(error)}`;
    warn(`[WARN] harness-tool: trace export was asked for (OTEL_* variables), but ${why}; traces are not exported`);
    return undefined;
  }
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { defaultResource, resourceFromAttributes, detectResources, envDetector },
    { OTLPTraceExporter },
  ] = modules;
  try {
    // SDK diagnostics (a collector that cannot be reached) go to stderr, which the host logs.
    diag.setLogger(
      {
        error: (message) => warn(`[ERROR] harness-tool: OpenTelemetry: ${message}`),
        warn: (message) => warn(`[WARN] harness-tool: OpenTelemetry: ${message}`),
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
    const resource = defaultResource()
      .merge(resourceFromAttributes({ "service.name": identity.name, "service.version": identity.version }))
      .merge(detectResources({ detectors: [envDetector] }));
    // The span exit: what a handler put into a span is redacted on its way to the collector.
    const exporter = redactingSpanExporter(new OTLPTraceExporter());
    const provider = new NodeTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(exporter, batchSettings(env))],
    });
    // The global tracer provider, the AsyncLocalStorage context manager and the W3C propagators:
    // the runtime's spans and the handlers' own go through them.
    provider.register();
    return {
      redactWith: (text) => exporter.redactWith(text),
      async shutdown(timeoutMs) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
          timer.unref();
        });
        await Promise.race([
          provider
            .shutdown()
            .catch((error: unknown) => warn(`[WARN] harness-tool: trace export shutdown failed: ${String(error)}`)),
          timeout,
        ]);
        clearTimeout(timer);
      },
    };
  } catch (error) {
    warn(
      `[WARN] harness-tool: trace export could not start: ${error instanceof Error ? error.message : String(error)}; traces are not exported`,
    );
    return undefined;
  }
}
