/**
 * Binding the gRPC server where go-plugin's host expects it: a fresh unix socket file under
 * PLUGIN_UNIX_SOCKET_DIR or the temp dir (go-plugin's default), or 127.0.0.1 on the first free
 * port of PLUGIN_MIN_PORT..PLUGIN_MAX_PORT.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, readFileSync, unlinkSync } from "node:fs";
import path from "node:path";
import type { ServerCredentials, Server } from "@grpc/grpc-js";
import type { PluginEnvironment } from "./plugin-environment.js";

/** Where the server listens. */
export interface Listening {
  readonly network: "unix" | "tcp";
  readonly address: string;
  /** What the server was bound to (grpc-js's port string, for `server.unbind`). */
  readonly target: string;
  /** Removes the socket file (unix); safe to call more than once and from an exit handler. */
  readonly cleanup: () => void;
}

function bind(server: Server, target: string, credentials: ServerCredentials): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(target, credentials, (error, port) => (error ? reject(error) : resolve(port)));
  });
}

/**
 * Binds a grpc-js `server` as the environment says and returns the address for the handshake line.
 * `credentials`: plaintext (ServerCredentials.createInsecure()) unless the host asked for AutoMTLS
 * (mutual-tls.ts).
 */
export function listen(server: Server, env: PluginEnvironment, credentials: ServerCredentials): Promise<Listening> {
  return listenWith(async (target) => void (await bind(server, target, credentials)), env);
}

/**
 * Binds with `bindTo` (a target `unix:<path>` or `127.0.0.1:<port>`, rejecting when taken) as the
 * environment says and returns the address for the handshake line: any server's listen.
 */
export async function listenWith(
  bindTo: (target: string) => Promise<void>,
  env: PluginEnvironment,
): Promise<Listening> {
  if (env.network === "tcp") {
    const span = env.maxPort - env.minPort + 1;
    const start = Math.floor(Math.random() * span);
    for (let i = 0; i < span; i++) {
      const port = env.minPort + ((start + i) % span);
      try {
        await bindTo(`127.0.0.1:${port}`);
        return { network: "tcp", address: `127.0.0.1:${port}`, target: `127.0.0.1:${port}`, cleanup: () => {} };
      } catch {
        // taken; try the next one
      }
    }
    throw new Error(`no free TCP port in ${env.minPort}..${env.maxPort} on 127.0.0.1`);
  }
  const socketPath = path.join(env.socketDir, `plugin${randomBytes(6).toString("hex")}`);
  // sun_path holds 108 bytes including the terminating NUL.
  if (Buffer.byteLength(socketPath) > 107) {
    throw new Error(
      `the socket path ${socketPath} is too long for a unix socket; set a shorter PLUGIN_UNIX_SOCKET_DIR`,
    );
  }
  await bindTo(`unix:${socketPath}`);
  const cleanup = () => removeSocketFile(socketPath);
  if (env.socketGroup !== undefined) {
    try {
      handToGroup(socketPath, env.socketGroup);
    } catch (error) {
      cleanup();
      throw error;
    }
  }
  return { network: "unix", address: socketPath, target: `unix:${socketPath}`, cleanup };
}

/** PLUGIN_UNIX_SOCKET_GROUP: the socket's group becomes that group (name or id), group-writable. */
function handToGroup(socketPath: string, group: string): void {
  const gid = /^\d+$/.test(group) ? Number(group) : groupIdByName(group);
  if (gid === undefined) throw new Error(`PLUGIN_UNIX_SOCKET_GROUP: no group named ${JSON.stringify(group)}`);
  chownSync(socketPath, -1, gid);
  chmodSync(socketPath, 0o660);
}

function groupIdByName(name: string): number | undefined {
  let text: string;
  try {
    text = readFileSync("/etc/group", "utf8");
  } catch {
    return undefined;
  }
  for (const line of text.split("\n")) {
    const [groupName, , gid] = line.split(":");
    if (groupName === name && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return undefined;
}

/**
 * Removes the socket file; gone already is fine. unlinkSync rather than rmSync: the same for one
 * file, without rmSync's first call (~0.2 ms) on the way out of every stop.
 */
function removeSocketFile(socketPath: string): void {
  try {
    unlinkSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
