/**
 * The plugin side of go-plugin over gRPC (wire-contract.md §3): one grpc-js server on a unix
 * socket (or TCP), with mutual TLS when the host asks for AutoMTLS, serving ToolService beside
 * go-plugin's health, broker, controller and stdio services; the handshake line printed once it
 * listens; and every way the process may end
 * (Shutdown, the broker stream ending, the parent gone, SIGTERM) leading to one orderly exit well
 * inside the host's 2 s, with the socket file removed.
 */
import { writeSync } from "node:fs";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Server, status as grpcStatus, type sendUnaryData, type ServerDuplexStream, type ServerUnaryCall, type ServerWritableStream } from "@grpc/grpc-js";
import { ToolService } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { createBrokerKernelClient } from "./broker-kernel-client.js";
import type { KernelClient } from "../service/kernel-client.js";
import { decodeRequest, type ToolServiceCore } from "../service/tool-service-core.js";
import { BrokerConnections } from "./broker-connections.js";
import { goPluginServices, grpcServiceDefinition } from "./grpc-service-definition.js";
import { formatHandshakeLine } from "./handshake-line.js";
import { pluginHealthServiceName } from "./health-check.js";
import { guardStdout, hostLog, survivePipeErrors, writeStderr } from "./host-log.js";
import { listen, type Listening } from "./listen.js";
import type { ProviderAutoMtls } from "./mutual-tls.js";
import { kernelHandshake, readPluginEnvironment } from "./plugin-environment.js";
import { disarmStartFailureGuard, reportStartFailure } from "./start-failure.js";
import { nghttp2StreamResetLimit, raiseStreamResetLimit, retireConnectionsBeforeResetLimit, StreamResetBudget } from "./stream-reset-limit.js";
import { loadStatusDetails, toolServiceHandlers } from "./tool-service-handlers.js";

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

/**
 * Why the provider is going away. "stream-reset-limit": the broker stream ended because nghttp2
 * ended the host's HTTP/2 session after a burst of cancelled calls; only where the provider can
 * neither raise that limit (Node < 22.10) nor retire connections before it (see
 * stream-reset-limit.ts), and only with a host whose client destroys a session on GOAWAY.
 */
export type ShutdownReason = "shutdown-rpc" | "broker-closed" | "stream-reset-limit" | "parent-gone" | "sigterm" | "stderr-closed";

/**
 * go-plugin's and gRPC health's messages, imported on the host's first call (and warmed up once the
 * handshake line is out) rather than at start-up: their descriptors are booted after the line.
 */
let hostMessages: Promise<typeof import("./go-plugin-messages.js")> | undefined;
const loadHostMessages = () => (hostMessages ??= import("./go-plugin-messages.js"));

/** How often the parent pid is checked: the backstop when the host dies without closing anything. */
const parentPollMs = 500;
/** After the grace, this much more for closing the server before exiting regardless. */
const closeMarginMs = 300;

/**
 * Runs the current process as a go-plugin plugin: checks the environment, creates the core with a
 * kernel client over broker ID 1, listens, prints the handshake line and serves until an exit.
 * Resolves with the exit code once `exit` was called.
 */
export async function serveGoPlugin(createCore: (kernel: KernelClient) => ToolServiceCore, options: GoPluginServerOptions = {}): Promise<number> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const graceMs = options.shutdownGraceMs ?? 1000;
  // From here on start failures are reported below, and uncaught exceptions by the service's guards.
  disarmStartFailureGuard();
  const processEnv = options.env ?? process.env;
  const checked = readPluginEnvironment(processEnv, options.network);
  if (!checked.ok) {
    // Without the cookie no host is listening: a person ran the binary, tell them on stderr.
    if (processEnv[kernelHandshake.cookieKey] !== kernelHandshake.cookieValue) writeStderr(`${checked.message}\n`);
    else reportStartFailure(checked.message);
    exit(1);
    return 1;
  }
  const env = checked.value;
  // AutoMTLS (the host sent PLUGIN_CLIENT_CERT): loaded, and a certificate made, only when asked.
  let autoMtls: ProviderAutoMtls | undefined;
  if (env.clientCertificatePem !== undefined) {
    try {
      autoMtls = (await import("./mutual-tls.js")).providerAutoMtls(env.clientCertificatePem);
    } catch (error) {
      reportStartFailure(error instanceof Error ? error.message : String(error), error);
      exit(1);
      return 1;
    }
  }
  const stdout = guardStdout();

  const broker = new BrokerConnections();
  const kernel = createBrokerKernelClient(broker, autoMtls?.brokerChannel);
  let core: ToolServiceCore;
  try {
    core = createCore(kernel);
  } catch (error) {
    // The provider's declarations break a rule: say which, before any handshake.
    stdout.restore();
    reportStartFailure(error instanceof Error ? error.message : String(error));
    exit(1);
    return 1;
  }

  const server = new Server({ "grpc.max_receive_message_length": -1 });
  // A burst of cancelled calls must not end the host's connection: nghttp2's stream-reset limit is
  // raised where Node can (>= 22.10), and every connection is retired before it reaches it (after
  // listening). Should neither be possible, a mirror of the limit names the cause of the end.
  let resetBudget = raiseStreamResetLimit(server) ? undefined : new StreamResetBudget();
  const openStreams = new Set<{ end: () => void }>();
  let stopping: Promise<number> | undefined;
  let listening: Listening | undefined;

  const stop = (trigger: ShutdownReason): Promise<number> => {
    stopping ??= (async () => {
      // From here on no new connection is accepted: a host reconnecting meets a closed socket
      // (UNAVAILABLE at once) rather than a provider on its way out.
      if (listening) {
        try {
          server.unbind(listening.target);
        } catch {
          // Not bound any more.
        }
      }
      let reason = trigger;
      if (trigger === "broker-closed" && resetBudget?.exhausted) {
        reason = "stream-reset-limit";
        hostLog(
          "error",
          `the host's connection ended after ${resetBudget.resets} cancelled calls: nghttp2 ends an HTTP/2 session past a burst of ${nghttp2StreamResetLimit.burst} stream resets (refilled at ${nghttp2StreamResetLimit.ratePerSecond}/s), and this provider can neither raise that limit (Node ${process.versions.node}; >= 22.10 can) nor retire connections before it (grpc-js keeps its HTTP/2 servers elsewhere than 1.14 did); the broker stream is gone with it, so the provider exits for the host to start it again`,
          { cancelledCalls: resetBudget.resets },
        );
      }
      hostLog("debug", "provider shutting down", { reason });
      const hardStop = setTimeout(() => finish(0), graceMs + closeMarginMs);
      try {
        await core.shutdown(graceMs);
      } catch (error) {
        hostLog("error", "ToolService shutdown failed", { error: error instanceof Error ? error.message : String(error) });
      }
      clearTimeout(hardStop);
      for (const stream of openStreams) stream.end();
      kernel.close();
      broker.close(new Error("the provider is shutting down"));
      server.forceShutdown();
      return finish(0);
    })();
    return stopping;
  };
  let exited = false;
  let resolveDone: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => (resolveDone = resolve));
  const finish = (code: number): number => {
    if (exited) return code;
    exited = true;
    listening?.cleanup();
    stdout.flush();
    resolveDone(code);
    exit(code);
    return code;
  };

  server.addService(grpcServiceDefinition(ToolService, decodeRequest), toolServiceHandlers(core, { streamCancelled: () => resetBudget?.reset() }));
  server.addService(goPluginServices.health, {
    check: (call: ServerUnaryCall<Uint8Array, Uint8Array>, callback: sendUnaryData<Uint8Array>) => {
      void loadHostMessages()
        .then(({ HealthCheckRequestSchema, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus: ServingStatus }) => {
          const { service } = fromBinary(HealthCheckRequestSchema, call.request);
          if (service !== "" && service !== pluginHealthServiceName && service !== ToolService.typeName) {
            callback({ code: grpcStatus.NOT_FOUND, details: `unknown service ${service}` });
            return;
          }
          const status = stopping ? ServingStatus.NOT_SERVING : ServingStatus.SERVING;
          callback(null, toBinary(HealthCheckResponseSchema, create(HealthCheckResponseSchema, { status })));
        })
        .catch((error: unknown) =>
          callback({ code: grpcStatus.INVALID_ARGUMENT, details: `undecodable HealthCheckRequest: ${error instanceof Error ? error.message : String(error)}` }),
        );
    },
  });
  let brokerStreamOpened = false;
  server.addService(goPluginServices.broker, {
    startStream: (call: ServerDuplexStream<Uint8Array, Uint8Array>) => {
      // go-plugin opens one broker stream per process, first thing. Another one is not the host's
      // broker: what it announces must not replace where the kernel's callbacks go, nor its end
      // end the provider.
      if (brokerStreamOpened) {
        hostLog("warn", "refused a second broker stream: the host's is open (go-plugin opens one per process); nothing it sends is recorded");
        call.emit("error", { code: grpcStatus.ALREADY_EXISTS, details: "the host's broker stream is already open; go-plugin opens one per process" });
        return;
      }
      brokerStreamOpened = true;
      // Kept open for the life of the process; its end means the host's broker is gone.
      const stream = { end: () => call.end() };
      openStreams.add(stream);
      // Recorded in the order they came, once the messages are loaded.
      let recorded = Promise.resolve();
      call.on("data", (bytes: Uint8Array) => {
        recorded = recorded.then(async () => {
          const { ConnInfoSchema } = await loadHostMessages();
          try {
            broker.record(fromBinary(ConnInfoSchema, bytes));
          } catch (error) {
            hostLog("warn", "undecodable broker ConnInfo", { error: error instanceof Error ? error.message : String(error) });
          }
        });
      });
      const closed = () => {
        openStreams.delete(stream);
        void stop("broker-closed");
      };
      call.on("end", closed);
      call.on("cancelled", closed);
      call.on("error", closed);
    },
  });
  server.addService(goPluginServices.controller, {
    shutdown: (_call: ServerUnaryCall<Uint8Array, Uint8Array>, callback: sendUnaryData<Uint8Array>) => {
      void loadHostMessages()
        .then(({ EmptySchema }) => callback(null, toBinary(EmptySchema, create(EmptySchema))))
        .finally(() => setImmediate(() => void stop("shutdown-rpc")));
    },
  });
  server.addService(goPluginServices.stdio, {
    // Console output already reaches the host as stderr log lines, so nothing is forwarded here;
    // the stream stays open (go-plugin v1.8.0 reads it until EOF) and ends on shutdown.
    streamStdio: (call: ServerWritableStream<Uint8Array, Uint8Array>) => {
      const stream = { end: () => call.end() };
      openStreams.add(stream);
      call.on("cancelled", () => openStreams.delete(stream));
    },
  });

  try {
    listening = await listen(server, env, autoMtls?.serverCredentials);
  } catch (error) {
    stdout.restore();
    reportStartFailure(`cannot listen for the host: ${error instanceof Error ? error.message : String(error)}`, error);
    exit(1);
    return 1;
  }
  process.on("exit", () => listening?.cleanup());
  const retiring = retireConnectionsBeforeResetLimit(server, (resets) =>
    hostLog("debug", "a host connection retired before nghttp2's stream-reset limit; new calls come on a new one", { cancelledStreams: resets }),
  );
  if (retiring) resetBudget = undefined;

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
    return finish(1);
  }

  void loadHostMessages();
  void loadStatusDetails();
  survivePipeErrors(() => void stop("stderr-closed"));
  const parentPid = process.ppid;
  const parentWatch = setInterval(() => {
    if (process.ppid !== parentPid) void stop("parent-gone");
  }, parentPollMs);
  parentWatch.unref();
  // go-plugin's plugins ignore SIGINT: a Ctrl-C in the host's terminal reaches the whole process
  // group, and the host shuts its plugins down itself.
  process.on("SIGINT", () => hostLog("debug", "SIGINT ignored; the host shuts the provider down"));
  process.on("SIGTERM", () => void stop("sigterm"));
  // A provider never dies from a misbehaving handler.
  if (options.guardProcess !== false) guardProcess();

  return done;
}

function guardProcess(): void {
  process.on("uncaughtException", (error) => hostLog("error", "uncaught exception in the provider", { error: error.stack ?? error.message }));
  process.on("unhandledRejection", (reason) =>
    hostLog("error", "unhandled rejection in the provider", { error: reason instanceof Error ? (reason.stack ?? reason.message) : String(reason) }),
  );
}
