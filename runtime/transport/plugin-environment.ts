/**
 * What the kernel's go-plugin host tells a provider through its environment
 * (docs/transport.md#the-kernels-handshake), checked before anything else happens: the cookie, the
 * protocol versions, where to listen, AutoMTLS.
 */
import os from "node:os";

/** The kernel's handshake config, as go-plugin's HandshakeConfig. */
export const kernelHandshake = {
  cookieKey: "PLUGGABLEHARNESS_AGENT_PLUGIN",
  cookieValue: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
  /** The app protocol versions this runtime speaks. */
  appVersions: [1] as readonly number[],
} as const;

/** Chooses TCP instead of the unix socket: `tcp` or `unix` (this runtime's variable, not go-plugin's). */
export const networkVariable = "HARNESS_TOOL_PLUGIN_NETWORK";

/** Where and how to listen, from the environment. */
export interface PluginEnvironment {
  readonly appVersion: number;
  readonly network: "unix" | "tcp";
  /** PLUGIN_UNIX_SOCKET_DIR or the temp dir. */
  readonly socketDir: string;
  /** PLUGIN_UNIX_SOCKET_GROUP: a group name or id the socket is handed to. */
  readonly socketGroup?: string;
  /** PLUGIN_MIN_PORT..PLUGIN_MAX_PORT, for TCP. */
  readonly minPort: number;
  readonly maxPort: number;
  /** PLUGIN_CLIENT_CERT: the host asks for AutoMTLS and trusts only this certificate (PEM, unchecked here). */
  readonly clientCertificatePem?: string;
}

/** The environment's verdict: where to listen, or why this process must not be a plugin. */
export type PluginEnvironmentResult = { ok: true; value: PluginEnvironment } | { ok: false; message: string };

/** Reads and checks the go-plugin variables; `preferred` is the serve() option's network. */
export function readPluginEnvironment(
  env: NodeJS.ProcessEnv,
  preferred: "unix" | "tcp" = "unix",
): PluginEnvironmentResult {
  if (env[kernelHandshake.cookieKey] !== kernelHandshake.cookieValue) {
    return {
      ok: false,
      message:
        "this binary is a plugin; it is started by the kernel (PluggableHarness launches it through go-plugin; " +
        "to try it by hand use harness-tool/testing's launch() or the harness-tool CLI)",
    };
  }
  const offered = (env.PLUGIN_PROTOCOL_VERSIONS ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "")
    .map(Number);
  // go-plugin: without PLUGIN_PROTOCOL_VERSIONS the plugin's own (default) version is used.
  const candidates =
    offered.length === 0 ? kernelHandshake.appVersions : offered.filter((v) => kernelHandshake.appVersions.includes(v));
  const appVersion = candidates.length === 0 ? undefined : Math.max(...candidates);
  if (appVersion === undefined) {
    return {
      ok: false,
      message: `incompatible plugin protocol versions: the host offers ${env.PLUGIN_PROTOCOL_VERSIONS}, this provider speaks ${kernelHandshake.appVersions.join(",")}`,
    };
  }
  const chosen = env[networkVariable];
  if (chosen !== undefined && chosen !== "" && chosen !== "unix" && chosen !== "tcp") {
    return { ok: false, message: `${networkVariable} must be "unix" or "tcp", not ${JSON.stringify(chosen)}` };
  }
  const minPort = portFrom(env.PLUGIN_MIN_PORT, 10000);
  const maxPort = portFrom(env.PLUGIN_MAX_PORT, 25000);
  if (minPort === undefined || maxPort === undefined || minPort > maxPort) {
    return {
      ok: false,
      message: `bad port range PLUGIN_MIN_PORT=${env.PLUGIN_MIN_PORT} PLUGIN_MAX_PORT=${env.PLUGIN_MAX_PORT}`,
    };
  }
  const socketGroup = env.PLUGIN_UNIX_SOCKET_GROUP;
  // go-plugin: AutoMTLS when the variable is set and not empty.
  const clientCertificatePem = env.PLUGIN_CLIENT_CERT;
  return {
    ok: true,
    value: {
      appVersion,
      network: chosen === "unix" || chosen === "tcp" ? chosen : preferred,
      socketDir: env.PLUGIN_UNIX_SOCKET_DIR || os.tmpdir(),
      ...(socketGroup ? { socketGroup } : {}),
      minPort,
      maxPort,
      ...(clientCertificatePem ? { clientCertificatePem } : {}),
    },
  };
}

function portFrom(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined || text === "") return fallback;
  const port = Number(text);
  return Number.isInteger(port) && port >= 0 && port <= 65535 ? port : undefined;
}
