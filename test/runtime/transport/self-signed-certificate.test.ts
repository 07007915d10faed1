/**
 * The AutoMTLS certificate and its DER encoder: the fields go-plugin's generateCert sets, read
 * back by OpenSSL through node:crypto's X509Certificate, and the encodings X.690 fixes.
 */
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { test } from "node:test";
import {
  derElement,
  derNamedBits,
  derObjectIdentifier,
  derTime,
  derUnsignedInteger,
} from "../../../runtime/transport/tls/asn1-der.js";
import { createSelfSignedCertificate } from "../../../runtime/transport/tls/self-signed-certificate.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

test("DER: object identifiers, minimal unsigned integers, both length forms, named bits, both time types", () => {
  assert.equal(hex(derObjectIdentifier("1.2.840.10045.4.3.2")), "06082a8648ce3d040302");
  assert.equal(hex(derObjectIdentifier("2.5.29.15")), "0603551d0f");
  assert.equal(hex(derUnsignedInteger(Buffer.from([0x00, 0x00, 0x01]))), "020101");
  assert.equal(
    hex(derUnsignedInteger(Buffer.from([0x80]))),
    "02020080",
    "a high bit gets a 0x00 so the integer stays positive",
  );
  assert.equal(hex(derUnsignedInteger(Buffer.from([0x00]))), "020100");
  assert.equal(hex(derElement(0x04, Buffer.alloc(127)).subarray(0, 2)), "047f");
  assert.equal(hex(derElement(0x04, Buffer.alloc(200)).subarray(0, 3)), "0481c8");
  assert.equal(hex(derElement(0x04, Buffer.alloc(300)).subarray(0, 4)), "0482012c");
  assert.equal(hex(derNamedBits([0, 2, 4, 5])), "030202ac", "KeyUsage: trailing zero bits dropped and counted");
  assert.equal(hex(derNamedBits([0])), "03020780");
  assert.equal(derTime(new Date("2049-12-31T23:59:59.900Z")).toString("latin1"), "\x17\x0d491231235959Z");
  assert.equal(derTime(new Date("2050-01-01T00:00:00Z")).toString("latin1"), "\x18\x0f20500101000000Z");
});

test("the certificate: CN and DNS localhost, a self-signed CA, go-plugin's validity, usages and key", () => {
  const now = new Date("2030-01-02T03:04:05.678Z");
  const made = createSelfSignedCertificate(now);
  const x509 = new X509Certificate(made.certificatePem);
  assert.deepEqual(x509.raw, made.certificateDer, "the PEM and the DER are the same certificate");
  assert.equal(x509.subject, "CN=localhost");
  assert.equal(x509.issuer, "CN=localhost");
  assert.equal(x509.subjectAltName, "DNS:localhost");
  assert.equal(x509.checkHost("localhost"), "localhost");
  assert.equal(x509.ca, true);
  assert.ok(x509.checkIssued(x509), "issued by itself");
  assert.ok(x509.verify(x509.publicKey), "its signature verifies with its own key");
  assert.ok(x509.checkPrivateKey(createPrivateKey(made.privateKeyPem)), "the private key is the certificate's");
  assert.equal(x509.publicKey.asymmetricKeyDetails?.namedCurve, "prime256v1");

  // go-plugin: NotBefore 30 s back, NotAfter 262980 h ahead (past 2049: GeneralizedTime).
  assert.equal(new Date(x509.validFrom).toISOString(), "2030-01-02T03:03:35.000Z");
  assert.equal(new Date(x509.validTo).getTime(), Date.parse("2030-01-02T03:04:05Z") + 262_980 * 3600_000);
  const early = new X509Certificate(createSelfSignedCertificate(new Date("2000-06-01T00:00:00Z")).certificatePem);
  assert.equal(
    new Date(early.validTo).getTime(),
    Date.parse("2000-06-01T00:00:00Z") + 262_980 * 3600_000,
    "UTCTime both ends",
  );

  // Node names the ExtKeyUsage list keyUsage; KeyUsage and BasicConstraints are checked in the DER.
  assert.deepEqual(
    [...(x509.keyUsage ?? [])].sort(),
    ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"],
    "serverAuth and clientAuth",
  );
  const keyUsageCritical = "0603551d0f" + "0101ff" + "0404" + "030202ac"; // digitalSignature|keyEncipherment|keyAgreement|keyCertSign
  assert.ok(hex(made.certificateDer).includes(keyUsageCritical), "KeyUsage, critical, go-plugin's four bits");
  const basicConstraintsCa = "0603551d13" + "0101ff" + "0405" + "30030101ff";
  assert.ok(hex(made.certificateDer).includes(basicConstraintsCa), "BasicConstraints, critical, CA:TRUE");
});

test("every certificate is fresh: its own key and a random positive serial of at most 128 bits", () => {
  const [a, b] = [createSelfSignedCertificate(), createSelfSignedCertificate()].map(
    (c) => new X509Certificate(c.certificatePem),
  );
  assert.ok(a && b);
  assert.notEqual(a.serialNumber, b.serialNumber);
  assert.ok(!a.publicKey.equals(b.publicKey));
  for (const serial of [a.serialNumber, b.serialNumber]) {
    const value = BigInt(`0x${serial}`);
    assert.ok(value > 0n && value < 1n << 128n, serial);
  }
  assert.ok(!a.verify(b.publicKey), "one certificate does not verify with another's key");
});
