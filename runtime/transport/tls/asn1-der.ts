/**
 * The few ASN.1 DER encodings an X.509 certificate needs (ITU-T X.690), for the AutoMTLS
 * certificate: Node can sign and export keys but has no API to build a certificate. Each function
 * returns one complete TLV (tag, length, value).
 */

/** A complete DER element: tag, length and contents. */
export type Der = Buffer;

/** Tag `tag` around `contents`, with a definite length in the shortest form DER requires. */
export function derElement(tag: number, contents: Uint8Array): Der {
  const length = contents.length;
  let header: number[];
  if (length < 0x80) {
    header = [tag, length];
  } else {
    const lengthBytes: number[] = [];
    for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest % 256);
    header = [tag, 0x80 | lengthBytes.length, ...lengthBytes];
  }
  return Buffer.concat([Buffer.from(header), contents]);
}

/** SEQUENCE of the given elements, in order. */
export function derSequence(...elements: readonly Der[]): Der {
  return derElement(0x30, Buffer.concat(elements));
}

/** SET of one element (a certificate's RelativeDistinguishedName), so no DER sorting is needed. */
export function derSetOfOne(element: Der): Der {
  return derElement(0x31, element);
}

/** A non-negative INTEGER from its big-endian magnitude: minimal length, a 0x00 before a high bit. */
export function derUnsignedInteger(magnitude: Uint8Array): Der {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const contents =
    trimmed.length === 0
      ? Buffer.from([0])
      : (trimmed[0] as number) & 0x80
        ? Buffer.concat([Buffer.from([0]), trimmed])
        : trimmed;
  return derElement(0x02, contents);
}

/** BOOLEAN. */
export function derBoolean(value: boolean): Der {
  return derElement(0x01, Buffer.from([value ? 0xff : 0x00]));
}

/** OBJECT IDENTIFIER from dotted text, e.g. "2.5.4.3". */
export function derObjectIdentifier(dotted: string): Der {
  const arcs = dotted.split(".").map(Number);
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined || arcs.some((arc) => !Number.isSafeInteger(arc) || arc < 0)) {
    throw new Error(`not an object identifier: ${dotted}`);
  }
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    // base 128, most significant group first, the high bit set on all groups but the last
    const groups = [arc % 128];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      groups.unshift(0x80 | (value % 128));
    bytes.push(...groups);
  }
  return derElement(0x06, Buffer.from(bytes));
}

/** OCTET STRING. */
export function derOctetString(contents: Uint8Array): Der {
  return derElement(0x04, contents);
}

/** BIT STRING of whole bytes (a key, a signature): no unused bits. */
export function derBitString(contents: Uint8Array): Der {
  return derElement(0x03, Buffer.concat([Buffer.from([0]), contents]));
}

/**
 * BIT STRING of named bits (bit 0 is the most significant bit of the first byte), as KeyUsage
 * needs: DER drops trailing zero bits and counts the unused ones of the last byte.
 */
export function derNamedBits(bitNumbers: readonly number[]): Der {
  const highest = Math.max(...bitNumbers);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bitNumbers) bytes[bit >> 3] = (bytes[bit >> 3] as number) | (0x80 >> (bit & 7));
  const unusedBits = 7 - (highest & 7);
  return derElement(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

/** UTF8String. */
export function derUtf8String(text: string): Der {
  return derElement(0x0c, Buffer.from(text, "utf8"));
}

/**
 * A certificate validity time (RFC 5280 §4.1.2.5): UTCTime up to 2049, GeneralizedTime from 2050,
 * both in whole seconds, UTC, with a final Z.
 */
export function derTime(date: Date): Der {
  const digits = date
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z")
    .replace(/[-:T]/g, "");
  const year = date.getUTCFullYear();
  return year < 2050
    ? derElement(0x17, Buffer.from(digits.slice(2), "ascii"))
    : derElement(0x18, Buffer.from(digits, "ascii"));
}

/** `[number] EXPLICIT` around one element, as a certificate's version and extensions are wrapped. */
export function derExplicit(number: number, element: Der): Der {
  return derElement(0xa0 | number, element);
}

/** `[number] IMPLICIT` IA5String, as a dNSName (2) in SubjectAltName. */
export function derImplicitIa5String(number: number, text: string): Der {
  return derElement(0x80 | number, Buffer.from(text, "ascii"));
}
