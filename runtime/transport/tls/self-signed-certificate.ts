/**
 * The one-time certificate of go-plugin's AutoMTLS: each side of a connection makes a fresh
 * self-signed certificate and trusts only the other side's. The fields are those of go-plugin
 * v1.8.0's generateCert (mtls.go): CN and DNS name localhost, a CA, KeyUsage digitalSignature,
 * keyEncipherment, keyAgreement and certSign, ExtKeyUsage clientAuth and serverAuth, NotBefore 30 s
 * in the past, NotAfter 262980 h (30 years) ahead, a random 128-bit serial, and like Go's
 * x509.CreateCertificate for a CA a SubjectKeyIdentifier. The key is ECDSA P-256 where go-plugin
 * uses P-521: Go accepts either, and a P-256 certificate costs 3–4 ms for a process's first
 * (0.6 ms after that) against 8–10 ms (4.5–6 ms) for P-521, key generation and signing included
 * (2 cores, Node 20; docs/transport.md).
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import {
  derBitString,
  derBoolean,
  derExplicit,
  derImplicitIa5String,
  derNamedBits,
  derObjectIdentifier,
  derOctetString,
  derSequence,
  derSetOfOne,
  derTime,
  derUnsignedInteger,
  derUtf8String,
  type Der,
} from "./asn1-der.js";

/** A certificate with its private key, in the forms TLS and the handshake line need. */
export interface SelfSignedCertificate {
  /** The certificate, PEM ("CERTIFICATE"). */
  readonly certificatePem: string;
  /** The certificate, DER: what the handshake line's 6th field carries. */
  readonly certificateDer: Buffer;
  /** The private key, PKCS#8 PEM. */
  readonly privateKeyPem: string;
}

/** The name on both sides of go-plugin's AutoMTLS: the certificate's CN and DNS name, and the TLS server name. */
export const autoMtlsServerName = "localhost";

const oid = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;

/** RFC 5280 §4.2.1.3 bit numbers. */
const keyUsageBits = { digitalSignature: 0, keyEncipherment: 2, keyAgreement: 4, keyCertSign: 5 } as const;

/** go-plugin's NotBefore margin and lifetime. */
const notBeforeMarginMs = 30_000;
const lifetimeMs = 262_980 * 3600_000;

/** Creates a fresh key pair and a self-signed certificate for it. */
export function createSelfSignedCertificate(now: Date = new Date()): SelfSignedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const subjectPublicKeyInfo = publicKey.export({ type: "spki", format: "der" });
  const jwk = publicKey.export({ format: "jwk" });
  // SubjectKeyIdentifier, RFC 5280 §4.2.1.2 method 1: SHA-1 of the public key's bits (the EC point).
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? "", "base64url"),
    Buffer.from(jwk.y ?? "", "base64url"),
  ]);
  const signatureAlgorithm = derSequence(derObjectIdentifier(oid.ecdsaWithSha256));
  const name = derSequence(
    derSetOfOne(derSequence(derObjectIdentifier(oid.commonName), derUtf8String(autoMtlsServerName))),
  );

  const tbsCertificate = derSequence(
    derExplicit(0, derUnsignedInteger(Buffer.from([2]))), // v3
    derUnsignedInteger(randomBytes(16)),
    signatureAlgorithm,
    name,
    derSequence(derTime(new Date(now.getTime() - notBeforeMarginMs)), derTime(new Date(now.getTime() + lifetimeMs))),
    name,
    subjectPublicKeyInfo,
    derExplicit(
      3,
      derSequence(
        extension(oid.keyUsage, true, derNamedBits(Object.values(keyUsageBits))),
        extension(
          oid.extKeyUsage,
          false,
          derSequence(derObjectIdentifier(oid.clientAuth), derObjectIdentifier(oid.serverAuth)),
        ),
        extension(oid.basicConstraints, true, derSequence(derBoolean(true))),
        extension(oid.subjectKeyIdentifier, false, derOctetString(createHash("sha1").update(point).digest())),
        extension(oid.subjectAltName, false, derSequence(derImplicitIa5String(2, autoMtlsServerName))),
      ),
    ),
  );
  const certificateDer = derSequence(
    tbsCertificate,
    signatureAlgorithm,
    derBitString(sign("sha256", tbsCertificate, privateKey)),
  );
  return {
    certificateDer,
    certificatePem: pemBlock("CERTIFICATE", certificateDer),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
  };
}

/** Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }. */
function extension(id: string, critical: boolean, value: Der): Der {
  return critical
    ? derSequence(derObjectIdentifier(id), derBoolean(true), derOctetString(value))
    : derSequence(derObjectIdentifier(id), derOctetString(value));
}

function pemBlock(label: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
