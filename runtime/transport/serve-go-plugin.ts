/**
 * The plugin side of go-plugin over gRPC (docs/transport.md#what-the-provider-does-in-order): one
 * gRPC server (node:http2's, or grpc-js's with HARNESS_TOOL_TRANSPORT=grpc-js: provider-server.ts)
 * on a unix socket (or TCP), with mutual TLS when the host asks for AutoMTLS,
 * serving ToolService (and, when the provider declares hooks, HookSubscriberService) beside
 * go-plugin's health, broker, controller and stdio services; the handshake line printed once it
 * listens; and every way the process may end
 * (Shutdown, the broker stream ending, the parent gone, SIGTERM) leading to one orderly exit well
 * inside the host's 2 s, with the socket file removed.
 */
import { writeSync } from "node:fs";
import { ToolService } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { createBrokerKernelClient } from "./broker-kernel-client.js";
import type { KernelClient } from "../service/kernel/kernel-client.js";
import { decodeRequest, type ToolServiceCore } from "../service/calls/tool-service-core.js";
import type { HookServiceCore } from "../service/hooks/hook-service-core.js";
import { hookServiceDefinition, hookServiceHandlers } from "./hook-service-handlers.js";
import { BrokerConnections } from "./broker-connections.js";
import { addGoPluginServices, loadHostMessages } from "./go-plugin-services.js";
import { addGrpcService } from "./grpc-service-definition.js";
import { formatHandshakeLine } from "./handshake-line.js";
import { guardStdout, hostLog, survivePipeErrors, writeStderr } from "./host-log.js";
import type { ProviderAutoMtls } from "./tls/provider-auto-mtls.js";
import { kernelHandshake, type PluginEnvironment, readPluginEnvironment } from "./plugin-environment.js";
import { ProviderLife } from "./provider-life.js";
import { disarmStartFailureGuard, reportStartFailure } from "./start-failure.js";
import { createProviderServer, transportFromEnv, type TransportName } from "./provider-server.js";
import { loadStatusDetails, toolServiceHandlers } from "./tool-service-handlers.js";
import { stackOf } from "../errors/classify-error.js";

export type { ShutdownReason } from "./provider-life.js";

/** Options of serveGoPlugin. */
export interface GoPluginServerOptions {
  /** The network when the host does not choose one (HARNESS_TOOL_PLUGIN_NETWORK); default unix. */
  readonly network?: "unix" | "tcp";
  /** How long in-flight calls get to finish after Shutdown; default 1000 ms (the host waits 2 s). */
  readonly shutdownGraceMs?: number;
  /** Default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Report uncaught exceptions and unhandled rejections on stderr instead of dying; default true.
   * serve() turns it off because the ToolService installs its own, redacting, guards.
   */
  readonly guardProcess?: boolean;
  /** Default process.exit. */
  readonly exit?: (code: number) => void;
}

export { providerServerOptions } from "./provider-server.js";

/** What serveGoPlugin serves: the ToolService, and the HookSubscriberService when there is one. */
export type ServedCore = ToolServiceCore & { readonly hooks?: HookServiceCore | undefined };

/** How often the parent pid is checked: the backstop when the host dies without closing anything. */
const parentPollMs = 500;

/** The checked environment of a start, or undefined once a start failure was reported. */
async function readStart(
  options: GoPluginServerOptions,
  exit: (code: number) => void,
): Promise<{ env: PluginEnvironment; autoMtls: ProviderAutoMtls | undefined; transport: TransportName } | undefined> {
  const processEnv = options.env ?? process.env;
  const checked = readPluginEnvironment(processEnv, options.network);
  const transport = transportFromEnv(processEnv);
  if (!checked.ok || !transport.ok) {
    const message = checked.ok ? (transport as { message: string }).message : checked.message;
    // Without the cookie no host is listening: a person ran the binary, tell them on stderr.
    if (processEnv[kernelHandshake.cookieKey] !== kernelHandshake.cookieValue) writeStderr(`${message}\n`);
    else reportStartFailure(message);
    exit(1);
    return undefined;
  }
  const env = checked.value;
  // AutoMTLS (the host sent PLUGIN_CLIENT_CERT): loaded, and a certificate made, only when asked.
  if (env.clientCertificatePem === undefined) return { env, autoMtls: undefined, transport: transport.value };
  try {
    const autoMtls = (await import("./tls/provider-auto-mtls.js")).providerAutoMtls(env.clientCertificatePem);
    return { env, autoMtls, transport: transport.value };
  } catch (error) {
    reportStartFailure(error instanceof Error ? error.message : String(error), error);
    exit(1);
    return undefined;
  }
}

/**
 * Runs the current process as a go-plugin plugin: checks the environment, creates the core with a
 * kernel client over broker ID 1, listens, prints the handshake line and serves until an exit.
 * Resolves with the exit code once `exit` was called.
 */
export async function serveGoPlugin(
  createCore: (kernel: KernelClient) => ServedCore,
  options: GoPluginServerOptions = {},
): Promise<number> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  // From here on start failures are reported below, and uncaught exceptions by the service's guards.
  disarmStartFailureGuard();
  const start = await readStart(options, exit);
  if (!start) return 1;
  const { env, autoMtls, transport } = start;
  const stdout = guardStdout();

  const broker = new BrokerConnections();
  const kernel = createBrokerKernelClient(broker, autoMtls?.tls);
  let core: ServedCore;
  try {
    core = createCore(kernel);
  } catch (error) {
    // The provider's declarations break a rule: say which, before any handshake.
    stdout.restore();
    reportStartFailure(error instanceof Error ? error.message : String(error));
    exit(1);
    return 1;
  }

  const server = await createProviderServer(transport, autoMtls);
  const life = new ProviderLife({
    server,
    core,
    kernel,
    broker,
    stdout,
    exit,
    graceMs: options.shutdownGraceMs ?? 1000,
  });
  addGrpcService(
    server,
    ToolService,
    toolServiceHandlers(core, { streamCancelled: () => life.resetBudget?.reset() }),
    decodeRequest,
  );
  // The kernel dials HookSubscriberService on the connection it already holds (hook-dispatch.md).
  if (core.hooks) server.addService(hookServiceDefinition, hookServiceHandlers(core.hooks));
  addGoPluginServices(server, life, broker);

  try {
    life.listening = await server.listen(env);
  } catch (error) {
    stdout.restore();
    reportStartFailure(`cannot listen for the host: ${error instanceof Error ? error.message : String(error)}`, error);
    exit(1);
    return 1;
  }
  const listening = life.listening;
  process.on("exit", () => listening.cleanup());
  const retiring = server.retireConnectionsBeforeResetLimit((resets) =>
    hostLog("debug", "a host connection retired before nghttp2's stream-reset limit; new calls come on a new one", {
      cancelledStreams: resets,
    }),
  );
  if (retiring) life.resetBudget = undefined;

  // Listen first, then the one line; nothing else is ever written to stdout.
  try {
    writeSync(
      1,
      formatHandshakeLine({
        appVersion: env.appVersion,
        network: listening.network,
        address: listening.address,
        ...(autoMtls ? { serverCertificate: autoMtls.certificateDer } : {}),
      }),
    );
  } catch {
    return life.finish(1);
  }
  // The host's messages and google.rpc.Status, booted now that the line is out (not before it).
  void loadHostMessages();
  void loadStatusDetails();
  // The first write to process.stderr runs Node's stream write path for the first time (~0.5 ms);
  // made now, with nothing in it, a provider's first line (often the stop's, on the way to the
  // host's Kill() returning) does not pay it.
  writeStderr("");
  watchForTheEnd(life);
  // A provider never dies from a misbehaving handler.
  if (options.guardProcess !== false) guardProcess();
  return life.done;
}

/** Every way the process learns it should go: stderr closed, the parent gone, SIGTERM (SIGINT is ignored). */
function watchForTheEnd(life: ProviderLife): void {
  survivePipeErrors(() => void life.stop("stderr-closed"));
  const parentPid = process.ppid;
  const parentWatch = setInterval(() => {
    if (process.ppid !== parentPid) void life.stop("parent-gone");
  }, parentPollMs);
  parentWatch.unref();
  // go-plugin's plugins ignore SIGINT: a Ctrl-C in the host's terminal reaches the whole process
  // group, and the host shuts its plugins down itself.
  process.on("SIGINT", () => hostLog("debug", "SIGINT ignored; the host shuts the provider down"));
  process.on("SIGTERM", () => void life.stop("sigterm"));
}

function guardProcess(): void {
  process.on("uncaughtException", (error) =>
    hostLog("error", "uncaught exception in the provider", { error: stackOf(error) }),
  );
  process.on("unhandledRejection", (reason) =>
    hostLog("error", "unhandled rejection in the provider", { error: stackOf(reason) }),
  );
}
