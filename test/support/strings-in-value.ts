// The text a value carries, for the secret-leak scenarios that look for a secret anywhere in it.

/**
 * Every string and byte array (as UTF-8) inside a value, keys included. Numbers are left out: a
 * sensitive number is matched as text only (out of scope as a JSON number), and sequence numbers
 * or timestamps would match a PIN's digits by chance.
 */
export function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString("utf8"));
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (typeof value === "object" && value !== null)
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  return out;
}
