/**
 * The provider's side of go-plugin's AutoMTLS without grpc-js: the host's certificate checked, the
 * provider's own made. The node:http2 server takes the material as node:tls options; grpc-js's
 * credentials (mutual-tls.ts) are built only where grpc-js is loaded anyway. Loaded only when the
 * host asks for AutoMTLS.
 */
import { X509Certificate } from "node:crypto";
import type { MutualTls } from "./mutual-tls.js";
import { createSelfSignedCertificate } from "./self-signed-certificate.js";

/** What AutoMTLS changes for a provider. */
export interface ProviderAutoMtls {
  /** The provider's certificate, DER, for the handshake line's 6th field. */
  readonly certificateDer: Buffer;
  /** The key, certificate and peer certificate: the gRPC server's TLS and the broker dial's. */
  readonly tls: MutualTls;
}

/**
 * The provider's side of AutoMTLS, from the host's PLUGIN_CLIENT_CERT: checks it is a PEM
 * certificate (throws an Error saying why not) and makes the provider's own certificate.
 */
export function providerAutoMtls(hostCertificatePem: string): ProviderAutoMtls {
  if (!hostCertificatePem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new Error("PLUGIN_CLIENT_CERT (AutoMTLS) holds no PEM certificate (no BEGIN CERTIFICATE block)");
  }
  try {
    new X509Certificate(hostCertificatePem);
  } catch (error) {
    throw new Error(
      `PLUGIN_CLIENT_CERT (AutoMTLS) is not a parsable PEM certificate: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const tls: MutualTls = { own: createSelfSignedCertificate(), peerCertificatePem: hostCertificatePem };
  return { certificateDer: tls.own.certificateDer, tls };
}
