/**
 * A failed call's extra trailers (today only `grpc-status-details-bin`), built without loading
 * grpc-js: the part of grpc-js's Metadata that both servers read from a status (grpc-js 1.14's
 * server clones it and sends `toHttp2Headers()`; the node:http2 server sends the same), and
 * `get`, which the host side and the tests read it back with. Binary (`-bin`) values go base64,
 * as grpc-js encodes them.
 */
import type { Metadata } from "@grpc/grpc-js";

export class StatusTrailers {
  readonly #values = new Map<string, Buffer[]>();

  /** Sets `key` (lower-cased) to the one value given. */
  set(key: string, value: Buffer): void {
    this.#values.set(key.toLowerCase(), [value]);
  }

  /** The values of `key`; empty when it has none. */
  get(key: string): Buffer[] {
    return this.#values.get(key.toLowerCase()) ?? [];
  }

  /** A copy (grpc-js's server sends a clone of a status's metadata). */
  clone(): StatusTrailers {
    const copy = new StatusTrailers();
    for (const [key, values] of this.#values) copy.#values.set(key, [...values]);
    return copy;
  }

  /** The trailers as HTTP/2 headers: binary values in base64. */
  toHttp2Headers(): Record<string, string | string[]> {
    const headers: Record<string, string | string[]> = {};
    for (const [key, values] of this.#values) {
      const encoded = values.map((value) => (key.endsWith("-bin") ? value.toString("base64") : value.toString()));
      headers[key] = encoded.length === 1 ? (encoded[0] as string) : encoded;
    }
    return headers;
  }

  /** As grpc-js's types name it: both servers read it only through the methods above. */
  asMetadata(): Metadata {
    return this as unknown as Metadata;
  }
}
