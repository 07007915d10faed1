/**
 * go-plugin's handshake line, `CORE|APP|NETWORK|ADDRESS|PROTOCOL` (wire-contract.md §3): the first
 * and only line a provider writes to stdout. Formatted by the provider, parsed by the test host.
 */

/** go-plugin's core protocol version. */
export const coreProtocolVersion = 1;

/** What the line says. */
export interface Handshake {
  readonly coreVersion: number;
  readonly appVersion: number;
  readonly network: "unix" | "tcp";
  readonly address: string;
  readonly protocol: "grpc";
}

/**
 * The line, newline included. No 6th field: without AutoMTLS a certificate there would make the
 * host dereference a nil TLS config.
 */
export function formatHandshakeLine(h: Omit<Handshake, "coreVersion" | "protocol">): string {
  return `${coreProtocolVersion}|${h.appVersion}|${h.network}|${h.address}|grpc\n`;
}

/**
 * Parses and checks a handshake line as go-plugin's host does (core version 1, an offered app
 * version, a known network, protocol grpc); throws an Error explaining what is wrong.
 */
export function parseHandshakeLine(line: string, offeredVersions: readonly number[]): Handshake {
  const parts = line.trim().split("|");
  if (parts.length < 4) {
    throw new Error(`unrecognized handshake line ${JSON.stringify(line)} (expected CORE|APP|NETWORK|ADDRESS|PROTOCOL)`);
  }
  const [core, app, network, address, protocol = "netrpc"] = parts as [string, string, string, string, string?];
  if (Number(core) !== coreProtocolVersion) {
    throw new Error(`handshake line ${JSON.stringify(line)}: core protocol version ${core}, expected ${coreProtocolVersion}`);
  }
  const appVersion = Number(app);
  if (!Number.isInteger(appVersion) || !offeredVersions.includes(appVersion)) {
    throw new Error(`handshake line ${JSON.stringify(line)}: app protocol version ${app} is not one of the offered ${offeredVersions.join(",")}`);
  }
  if (network !== "unix" && network !== "tcp") {
    throw new Error(`handshake line ${JSON.stringify(line)}: unknown network ${JSON.stringify(network)}`);
  }
  if (protocol !== "grpc") {
    throw new Error(`handshake line ${JSON.stringify(line)}: protocol ${JSON.stringify(protocol)}, only grpc is allowed`);
  }
  return { coreVersion: coreProtocolVersion, appVersion, network, address, protocol };
}
