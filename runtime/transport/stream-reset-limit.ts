/**
 * nghttp2's limit on incoming stream resets (RST_STREAM), its rapid-reset defence (CVE-2023-44487):
 * a bucket of 1,000 refilled at 33 per second; a reset that finds it empty makes nghttp2 send
 * GOAWAY(INTERNAL_ERROR) and end the whole HTTP/2 session. Each Invoke the kernel cancels is one
 * reset, so a kernel cancelling more than about a thousand calls within seconds would end the
 * provider's only connection, the broker stream with it.
 *
 * Node >= 22.10 (and 23) take `streamResetBurst`/`streamResetRate` in http2.createServer's options;
 * grpc-js does not pass them through, so they are added to the options it creates its HTTP/2
 * server with, before it binds. Node 20 has no way to change the limit: there the transport keeps a
 * mirror of nghttp2's bucket, so that the end of the session can be named for what it is.
 */
import type { Server } from "@grpc/grpc-js";

/** nghttp2's defaults: the burst of resets allowed, and how many come back per second. */
export const nghttp2StreamResetLimit = { burst: 1000, ratePerSecond: 33 } as const;

/**
 * What the provider raises them to where Node allows: the kernel is the provider's own parent on a
 * private socket, not an untrusted peer, and cancelling is its ordinary control flow.
 */
export const raisedStreamResetLimit = { streamResetBurst: 100_000, streamResetRate: 10_000 } as const;

/** True when this Node's http2 server takes streamResetBurst/streamResetRate (>= 22.10). */
export function nodeCanRaiseStreamResetLimit(nodeVersion: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = nodeVersion.split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 10);
}

/**
 * Raises the limit for the HTTP/2 server grpc-js will create at bind time; returns false where Node
 * cannot (the limit stays nghttp2's), or where grpc-js no longer has the options object it had in
 * 1.14 (`commonServerOptions`).
 */
export function raiseStreamResetLimit(server: Server, nodeVersion: string = process.versions.node): boolean {
  if (!nodeCanRaiseStreamResetLimit(nodeVersion)) return false;
  const options = (server as unknown as { commonServerOptions?: Record<string, unknown> }).commonServerOptions;
  if (typeof options !== "object" || options === null) return false;
  Object.assign(options, raisedStreamResetLimit);
  return true;
}

/** A mirror of nghttp2's reset bucket, fed with the streams the host cancels. */
export class StreamResetBudget {
  #tokens: number = nghttp2StreamResetLimit.burst;
  #at: number;
  #resets = 0;
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#at = now();
  }

  /** One stream reset by the host. */
  reset(): void {
    this.#refill();
    this.#tokens = Math.max(0, this.#tokens - 1);
    this.#resets++;
  }

  /** How many resets were recorded. */
  get resets(): number {
    return this.#resets;
  }

  /**
   * True when the bucket is (within a second's refill of) empty: nghttp2 has ended, or is about to
   * end, the session. nghttp2 refills once per whole second, so the mirror allows that much slack.
   */
  get exhausted(): boolean {
    this.#refill();
    return this.#tokens < nghttp2StreamResetLimit.ratePerSecond;
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(nghttp2StreamResetLimit.burst, this.#tokens + ((now - this.#at) / 1000) * nghttp2StreamResetLimit.ratePerSecond);
    this.#at = now;
  }
}
