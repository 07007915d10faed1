/**
 * grpc-js credentials for go-plugin's AutoMTLS. The two sides are symmetric: each presents its own
 * one-time certificate and trusts only the peer's, as a server (the provider's gRPC server, the
 * host's broker server) and as a client (the host's connection, the provider's broker dial), with
 * the server name localhost (go-plugin v1.8.0's tls.Config: RequireAndVerifyClientCert,
 * ServerName "localhost", the peer's certificate as RootCAs and ClientCAs). Loaded only when the
 * host asks for AutoMTLS.
 */
import { X509Certificate } from "node:crypto";
import { credentials, ServerCredentials } from "@grpc/grpc-js";
import {
  autoMtlsServerName,
  createSelfSignedCertificate,
  type SelfSignedCertificate,
} from "./self-signed-certificate.js";
import type { ChannelSecurity } from "./channel-security.js";

/** This side's certificate and the only certificate it trusts. */
export interface MutualTls {
  readonly own: SelfSignedCertificate;
  /** PEM of the peer's certificate. */
  readonly peerCertificatePem: string;
}

/** A TLS server that requires a client certificate verified against the peer's. */
export function mutualTlsServerCredentials(tls: MutualTls): ServerCredentials {
  return ServerCredentials.createSsl(
    Buffer.from(tls.peerCertificatePem),
    [{ private_key: Buffer.from(tls.own.privateKeyPem), cert_chain: Buffer.from(tls.own.certificatePem) }],
    true,
  );
}

/**
 * A TLS client presenting this side's certificate and verifying the server against the peer's.
 * The name is set explicitly: a TCP target's authority would be 127.0.0.1, not the certificate's
 * localhost.
 */
export function mutualTlsChannel(tls: MutualTls): ChannelSecurity {
  return {
    credentials: credentials.createSsl(
      Buffer.from(tls.peerCertificatePem),
      Buffer.from(tls.own.privateKeyPem),
      Buffer.from(tls.own.certificatePem),
    ),
    options: { "grpc.ssl_target_name_override": autoMtlsServerName, "grpc.default_authority": autoMtlsServerName },
  };
}

/** The PEM of a DER certificate (the handshake line carries DER; grpc-js wants PEM). */
export function certificatePemFromDer(der: Uint8Array): string {
  return new X509Certificate(der).toString();
}

/** What AutoMTLS changes for a provider. */
export interface ProviderAutoMtls {
  /** The gRPC server's: TLS with the provider's certificate, the host's required of every client. */
  readonly serverCredentials: ServerCredentials;
  /** The broker dial to the kernel's callbacks, which the host serves with TLS too. */
  readonly brokerChannel: ChannelSecurity;
  /** The provider's certificate, DER, for the handshake line's 6th field. */
  readonly certificateDer: Buffer;
  /** The key, certificate and peer certificate themselves (the node:http2 server's TLS). */
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
  return {
    serverCredentials: mutualTlsServerCredentials(tls),
    brokerChannel: mutualTlsChannel(tls),
    certificateDer: tls.own.certificateDer,
    tls,
  };
}
