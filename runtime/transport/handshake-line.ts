/**
 * go-plugin's handshake line, `CORE|APP|NETWORK|ADDRESS|PROTOCOL[|CERT]`
 * (docs/transport.md#what-the-provider-does-in-order, step 5): the first and only line a provider
 * writes to stdout. Formatted by the provider, parsed by the test host. CERT is the provider's
 * AutoMTLS certificate, only when the host asked for AutoMTLS.
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
  /** AutoMTLS: the provider's certificate (DER), from the 6th field. */
  readonly serverCertificate?: Uint8Array;
}

/** go-plugin's host takes a 6th field for a certificate only above this length ("extra" data of older plugins is shorter). */
const minCertificateFieldLength = 51;

/**
 * The line, newline included. The 6th field, base64 without padding (Go's RawStdEncoding) of the
 * certificate's DER, only with AutoMTLS: without it, a certificate there would make the host
 * dereference a nil TLS config.
 */
export function formatHandshakeLine(h: Omit<Handshake, "coreVersion" | "protocol">): string {
  const certificate =
    h.serverCertificate === undefined
      ? ""
      : `|${Buffer.from(h.serverCertificate).toString("base64").replace(/=+$/, "")}`;
  return `${coreProtocolVersion}|${h.appVersion}|${h.network}|${h.address}|grpc${certificate}\n`;
}

/**
 * Parses and checks a handshake line as go-plugin's host does (core version 1, an offered app
 * version, a known network, protocol grpc; a 6th field over 50 characters is the AutoMTLS
 * certificate, decoded to DER); throws an Error explaining what is wrong.
 */
export function parseHandshakeLine(line: string, offeredVersions: readonly number[]): Handshake {
  const parts = line.trim().split("|");
  if (parts.length < 4) {
    // Verbatim, as go-plugin quotes it: a provider that cannot start puts its reason here.
    throw new Error(`unrecognized handshake line (expected CORE|APP|NETWORK|ADDRESS|PROTOCOL): ${line}`);
  }
  const [core, app, network, address, protocol = "netrpc", certificate = ""] = parts as [
    string,
    string,
    string,
    string,
    string?,
    string?,
  ];
  if (Number(core) !== coreProtocolVersion) {
    throw new Error(
      `handshake line ${JSON.stringify(line)}: core protocol version ${core}, expected ${coreProtocolVersion}`,
    );
  }
  const appVersion = Number(app);
  if (!Number.isInteger(appVersion) || !offeredVersions.includes(appVersion)) {
    throw new Error(
      `handshake line ${JSON.stringify(line)}: app protocol version ${app} is not one of the offered ${offeredVersions.join(",")}`,
    );
  }
  if (network !== "unix" && network !== "tcp") {
    throw new Error(`handshake line ${JSON.stringify(line)}: unknown network ${JSON.stringify(network)}`);
  }
  if (protocol !== "grpc") {
    throw new Error(
      `handshake line ${JSON.stringify(line)}: protocol ${JSON.stringify(protocol)}, only grpc is allowed`,
    );
  }
  if (certificate.length < minCertificateFieldLength)
    return { coreVersion: coreProtocolVersion, appVersion, network, address, protocol };
  // Go's RawStdEncoding: the standard alphabet, no padding, no length of 4n+1.
  if (!/^[A-Za-z0-9+/]+$/.test(certificate) || certificate.length % 4 === 1) {
    throw new Error(`handshake line ${JSON.stringify(line)}: the certificate field is not unpadded standard base64`);
  }
  return {
    coreVersion: coreProtocolVersion,
    appVersion,
    network,
    address,
    protocol,
    serverCertificate: Buffer.from(certificate, "base64"),
  };
}
