/**
 * grpc-js credentials for go-plugin's AutoMTLS. The two sides are symmetric: each presents its own
 * one-time certificate and trusts only the peer's, as a server (the provider's gRPC server, the
 * host's broker server) and as a client (the host's connection, the provider's broker dial), with
 * the server name localhost (go-plugin v1.8.0's tls.Config: RequireAndVerifyClientCert,
 * ServerName "localhost", the peer's certificate as RootCAs and ClientCAs). A provider loads it
 * only where it uses grpc-js (its grpc-js server, its broker client's first callback).
 */
import { X509Certificate } from "node:crypto";
import { credentials, ServerCredentials } from "@grpc/grpc-js";
import { autoMtlsServerName, type SelfSignedCertificate } from "./self-signed-certificate.js";
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
