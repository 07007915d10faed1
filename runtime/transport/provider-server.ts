/**
 * The gRPC server a provider serves on, chosen by HARNESS_TOOL_TRANSPORT: `http2` (the default),
 * gRPC on node:http2 with the framing of node-grpc/ (no grpc-js loaded before the handshake line;
 * the broker's client to the kernel loads it at the first callback), or `grpc-js`, grpc-js's
 * server. Both take the same service definitions and handler tables, listen where go-plugin's host
 * expects, retire a connection before nghttp2's stream-reset limit, and stop the same way.
 */
import type { ServiceDefinition, UntypedServiceImplementation } from "@grpc/grpc-js";
import { listen, listenWith, type Listening } from "./listen.js";
import type { PluginEnvironment } from "./plugin-environment.js";
import type { ProviderAutoMtls } from "./tls/provider-auto-mtls.js";
import {
  nodeCanRaiseStreamResetLimit,
  raisedStreamResetLimit,
  raiseStreamResetLimit,
  retireConnectionsBeforeResetLimit,
  retireSessionBeforeResetLimit,
} from "./stream-reset-limit.js";

/** The environment variable that picks the transport. */
export const transportVariable = "HARNESS_TOOL_TRANSPORT";

/** The transports a provider can serve on. */
export const transportNames = ["http2", "grpc-js"] as const;
export type TransportName = (typeof transportNames)[number];

/** The transport the environment asks for, or an error message naming the choices. */
export function transportFromEnv(
  env: NodeJS.ProcessEnv,
): { ok: true; value: TransportName } | { ok: false; message: string } {
  const value = env[transportVariable];
  if (value === undefined || value === "") return { ok: true, value: "http2" };
  if ((transportNames as readonly string[]).includes(value)) return { ok: true, value: value as TransportName };
  return {
    ok: false,
    message: `${transportVariable}=${value} is not a transport (set it to http2 or grpc-js, or unset it for http2)`,
  };
}

/** What serveGoPlugin and ProviderLife use of a server, whichever it is. */
export interface ProviderServer {
  addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void;
  /** Binds where the environment says; returns the address for the handshake line. */
  listen(env: PluginEnvironment): Promise<Listening>;
  /** Stops accepting connections (the open ones carry on). */
  unbind(target: string): void;
  /** Ends every connection at once. */
  forceShutdown(): void;
  /** True when nghttp2's stream-reset limit was raised for this server's connections. */
  readonly resetLimitRaised: boolean;
  /** Retires each connection before its stream-reset budget runs out (after listen); false when it cannot. */
  retireConnectionsBeforeResetLimit(retired: (resets: number) => void): boolean;
}

/** The server of `transport`, with mutual TLS when the host asked for AutoMTLS. */
export async function createProviderServer(
  transport: TransportName,
  autoMtls: ProviderAutoMtls | undefined,
): Promise<ProviderServer> {
  return transport === "http2" ? http2Server(autoMtls) : grpcJsServer(autoMtls);
}

/**
 * The grpc-js server's options: no limit on what the kernel sends (the service bounds it), and no
 * channelz, grpc-js's per-call introspection bookkeeping that nothing in a provider reads (a few
 * percent of a trivial call's CPU, bench/RESULTS.md, Invoke).
 */
export const providerServerOptions = { "grpc.max_receive_message_length": -1, "grpc.enable_channelz": 0 } as const;

async function grpcJsServer(autoMtls: ProviderAutoMtls | undefined): Promise<ProviderServer> {
  const { Server, ServerCredentials } = await import("@grpc/grpc-js");
  const credentials = autoMtls
    ? (await import("./tls/mutual-tls.js")).mutualTlsServerCredentials(autoMtls.tls)
    : ServerCredentials.createInsecure();
  const server = new Server(providerServerOptions);
  const resetLimitRaised = raiseStreamResetLimit(server);
  return {
    addService: (definition, implementation) => server.addService(definition, implementation),
    listen: (env) => listen(server, env, credentials),
    unbind: (target) => server.unbind(target),
    forceShutdown: () => server.forceShutdown(),
    resetLimitRaised,
    retireConnectionsBeforeResetLimit: (retired) => retireConnectionsBeforeResetLimit(server, retired),
  };
}

async function http2Server(autoMtls: ProviderAutoMtls | undefined): Promise<ProviderServer> {
  const { Http2GrpcServer } = await import("./node-grpc/grpc-http2-server.js");
  const resetLimitRaised = nodeCanRaiseStreamResetLimit();
  const tls = autoMtls?.tls;
  const server = new Http2GrpcServer({
    maxReceiveMessageLength: -1,
    ...(resetLimitRaised ? { http2: { ...raisedStreamResetLimit } } : {}),
    ...(tls ? { tls: { key: tls.own.privateKeyPem, cert: tls.own.certificatePem, ca: tls.peerCertificatePem } } : {}),
  });
  return {
    addService: (definition, implementation) => server.addService(definition, implementation),
    listen: (env) => listenWith((target) => server.bind(target), env),
    unbind: () => server.unbind(),
    forceShutdown: () => server.forceShutdown(),
    resetLimitRaised,
    retireConnectionsBeforeResetLimit: (retired) => {
      server.http2Server.on("session", (session) => retireSessionBeforeResetLimit(session, retired));
      return true;
    },
  };
}
