/**
 * nghttp2's limit on incoming stream resets (RST_STREAM), its rapid-reset defence (CVE-2023-44487):
 * a bucket of 1,000 refilled at 33 per second; every RST_STREAM a server receives takes one, and one
 * that finds it empty makes nghttp2 send GOAWAY(INTERNAL_ERROR). Each Invoke the host cancels is
 * one reset. What that GOAWAY does depends on the host's client: grpc-go (the kernel, go-plugin)
 * drains the connection, so its open streams (the broker's) carry on and new calls go to a new one;
 * node:http2 (under grpc-js: harness-tool/testing, the CLI) destroys the session on any GOAWAY
 * with an error code, the broker stream with it, and the provider then exits.
 *
 * So the provider retires a connection itself before its budget runs out: GOAWAY(NO_ERROR) with the
 * last stream id 2^31-1 (RFC 9113 §6.8's notice: no stream refused), which every gRPC client takes as
 * "open new calls elsewhere" while the open ones finish, then the final GOAWAY a second later. After
 * a GOAWAY nghttp2 stops counting resets on that session, and the new connection has a full bucket.
 *
 * Node >= 22.10 (and 23) also take `streamResetBurst`/`streamResetRate` in http2.createServer's
 * options; grpc-js does not pass them through, so they are added to the options it creates its
 * HTTP/2 server with, before it binds.
 */
import { constants as http2Constants, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import { EventEmitter } from "node:events";
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
export function raiseStreamResetLimit(server: object, nodeVersion: string = process.versions.node): boolean {
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

  /** How many resets nghttp2 would still take now. */
  get remaining(): number {
    this.#refill();
    return this.#tokens;
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
    this.#tokens = Math.min(
      nghttp2StreamResetLimit.burst,
      this.#tokens + ((now - this.#at) / 1000) * nghttp2StreamResetLimit.ratePerSecond,
    );
    this.#at = now;
  }
}

/**
 * A connection is retired when nghttp2's bucket (as mirrored) is down to half: the other half is the
 * margin for resets the provider cannot see (a cancel crossing the end of its call, whose stream is
 * already closed on the provider's side, still takes a token).
 */
export const retireAtRemainingResets = nghttp2StreamResetLimit.burst / 2;

/** Between the notice and the final GOAWAY: streams the host opened meanwhile are still taken. */
const retiredSessionCloseMs = 1000;

/** The last stream id of a GOAWAY that refuses nothing (RFC 9113 §6.8). */
const goawayNoticeLastStreamId = 2 ** 31 - 1;

/**
 * Watches every HTTP/2 connection of a bound grpc-js server and retires one (GOAWAY, see above)
 * before the host's cancels empty its stream-reset budget; `retired` is told how many resets the
 * connection had. Call after binding. Returns false where grpc-js no longer keeps its HTTP/2 servers
 * where 1.14 did (`http2Servers`); the connections are then not watched.
 */
export function retireConnectionsBeforeResetLimit(server: Server, retired: (resets: number) => void): boolean {
  const http2Servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(http2Servers instanceof Map) || http2Servers.size === 0) return false;
  for (const http2Server of http2Servers.keys()) {
    if (!(http2Server instanceof EventEmitter)) return false;
    http2Server.on("session", (session: ServerHttp2Session) => retireSessionBeforeResetLimit(session, retired));
  }
  return true;
}

/** Watches one HTTP/2 connection and retires it before the host's cancels empty its reset budget. */
export function retireSessionBeforeResetLimit(session: ServerHttp2Session, retired: (resets: number) => void): void {
  const budget = new StreamResetBudget();
  let retiring = false;
  // One listener function for every stream of the session ('close' comes once; `this` is the stream).
  function closed(this: ServerHttp2Stream): void {
    // Any stream closed with an error code: the host's resets, and (harmlessly counted too) ours.
    // Once a GOAWAY is out nghttp2 counts no more resets on this session, nor does the mirror.
    if (retiring || this.rstCode === http2Constants.NGHTTP2_NO_ERROR) return;
    budget.reset();
    if (budget.remaining > retireAtRemainingResets) return;
    retiring = true;
    try {
      session.goaway(http2Constants.NGHTTP2_NO_ERROR, goawayNoticeLastStreamId);
    } catch {
      return; // the session is already gone
    }
    retired(budget.resets);
    setTimeout(() => {
      if (!session.closed && !session.destroyed) session.close();
    }, retiredSessionCloseMs).unref();
  }
  session.on("stream", (stream: ServerHttp2Stream) => stream.on("close", closed));
}
