/**
 * `serve(provider)`: makes the current process a tool provider the PluggableHarness kernel can
 * launch through go-plugin. The ToolService semantics (runtime/service) sit behind the
 * ToolServiceCore door; the go-plugin transport (runtime/transport) serves it. Both are imported
 * lazily, so `import { defineTool } from "harness-tool"` does not load gRPC.
 */
import type { ProviderDefinition } from "./provider/provider-definition.js";

/** Options of serve(). */
export interface ServeOptions {
  /**
   * Where to listen when the host does not say: a unix socket (go-plugin's default, and the
   * kernel's) or TCP on 127.0.0.1 within PLUGIN_MIN_PORT..PLUGIN_MAX_PORT. The environment
   * variable HARNESS_TOOL_PLUGIN_NETWORK=tcp|unix overrides it.
   */
  readonly network?: "unix" | "tcp";
  /** How long in-flight calls get to end after the kernel's Shutdown; default 1000 ms (the host allows 2 s). */
  readonly shutdownGraceMs?: number;
  /**
   * Run under harness-tool's supervisor (runtime/supervisor): when a host launched this process,
   * serve() starts the provider again as its child and stays in between, so every byte written to
   * the provider's stdout and stderr (below process.stderr.write too) is filtered for secrets, and
   * the tools' process groups are ended even when the host SIGKILLs the provider. Default true;
   * false, or HARNESS_TOOL_SUPERVISOR=off in the environment, serves in this process alone
   * (docs/runtime.md#the-supervisor says what is then no longer guaranteed). The executables
   * `harness-tool bundle` and `release` write decide before this code loads, from the environment:
   * under them, false makes their supervisor pass the output through unfiltered (still two
   * processes; HARNESS_TOOL_SUPERVISOR=off is seen by both).
   */
  readonly supervise?: boolean;
}

/**
 * Checks the provider's declarations (a broken rule is printed on stderr, naming the tool and the
 * rule, and the process exits 1 before any handshake), starts the gRPC server, prints the
 * go-plugin handshake line and serves until the kernel shuts the provider down, then exits the
 * process. Call it last in the provider's entry point; write nothing to stdout before it.
 *
 * @example
 * ```ts
 * import { defineProvider, defineTool, serve } from "harness-tool";
 *
 * const echo = defineTool({
 *   name: "echo",
 *   kind: "data_source",
 *   risk: "read_only",
 *   description: "Returns its input.",
 *   inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   outputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
 *   concurrency: { safe: true },
 *   idempotent: true,
 * });
 *
 * const provider = defineProvider(
 *   { name: "echo", version: "1.0.0", source: "github.com/acme/echo", tools: { echo } },
 *   { echo: async (input) => ({ text: input.text }) },
 * );
 * await serve(provider);
 * ```
 */
export async function serve<Config>(provider: ProviderDefinition<Config>, options: ServeOptions = {}): Promise<void> {
  const [{ supervisorChannel }, { supervisionWanted }] = await Promise.all([
    import("./supervisor/supervisor-channel.js"),
    import("./supervisor/supervision-wanted.js"),
  ]);
  let channel = supervisorChannel();
  if (channel && options.supervise === false) {
    // A supervisor started before this code loaded (the executable `harness-tool bundle` or
    // `release` wrote) could not see the option: it passes the output through from now on.
    channel.passThrough();
    channel = undefined;
  }
  if (!channel && supervisionWanted(process.env, options.supervise)) {
    // The kernel launched this process: it becomes the supervisor, and a copy of it the provider.
    const [{ superviseProvider }, { disarmStartFailureGuard }] = await Promise.all([
      import("./supervisor/supervise-provider.js"),
      import("./transport/start-failure.js"),
    ]);
    disarmStartFailureGuard();
    return superviseProvider();
  }
  const [
    { serveGoPlugin },
    { createToolService },
    hookService,
    { filterStderr, hostLogLine, writeStderr },
    { startTraceExport },
  ] = await Promise.all([
    import("./transport/serve-go-plugin.js"),
    import("./service/calls/tool-service.js"),
    // Only a provider that declares hooks loads the hook service (and boots hook.proto's descriptors).
    provider.hooks && Object.keys(provider.hooks).length > 0 ? import("./service/hooks/hook-service.js") : undefined,
    import("./transport/host-log.js"),
    import("./telemetry/trace-export.js"),
  ]);
  const { superviseService } = await import("./supervisor/supervised-service.js");
  // A supervisor learns the exit code over the channel and goes without waiting out the teardown.
  const supervisor = channel;
  const exitProcess = (code: number) => (supervisor ? supervisor.exit(code) : process.exit(code));
  // Loads the OpenTelemetry SDK only when the OTEL_* variables ask for export (docs/runtime.md#tracing).
  const traceExport = await startTraceExport(process.env, { name: provider.name, version: provider.version }, (line) =>
    writeStderr(`${line}\n`),
  );
  await serveGoPlugin(
    (kernel) => {
      const service = createToolService(provider, {
        kernel,
        // The service's JSON lines already carry go-plugin's six-digit @timestamp (kernel-bindings.ts).
        stderr: (line) => writeStderr(`${line}\n`),
        // The service's guards report through its stderr exit; the transport leaves the process events to them.
        guardProcess: true,
      });
      // stderr is an exit of the process too: whatever else writes there (the transport's own lines,
      // console output, a handler's process.stderr.write) passes the service's redaction.
      filterStderr(service.redactText);
      // So are exported spans: a handler may put anything into its own (runtime/telemetry/redacting-span-exporter.ts).
      traceExport?.redactWith(service.redactText);
      // Secrets to the supervisor, the tools' groups to the orphan watchdog, strays named
      // (docs/runtime.md#the-supervisor).
      superviseService(service, {
        attributes: provider.config.attributes,
        channel,
        warn: (message, fields) => writeStderr(hostLogLine("warn", message, fields)),
      });
      // The hook subscriptions, served beside the tools on the same connection (docs/hooks.md).
      return Object.assign(service, { hooks: hookService?.createHookService(service.serviceScope) });
    },
    {
      guardProcess: false,
      // Queued spans are flushed before the process exits, inside the host's grace period.
      exit: traceExport
        ? (code: number) => void traceExport.shutdown(exportFlushMs).finally(() => exitProcess(code))
        : exitProcess,
      ...(options.network ? { network: options.network } : {}),
      ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
    },
  );
}

/** How long the last spans may take to reach the collector once the provider stops (go-plugin waits 2 s after Shutdown, and the calls may have used the 1 s grace). */
const exportFlushMs = 700;
