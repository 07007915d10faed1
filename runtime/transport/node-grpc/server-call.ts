/**
 * One gRPC call on one node:http2 stream, as the handler tables written for grpc-js see it: the
 * call object (request, metadata, getDeadline, write/end, the 'cancelled', 'drain', 'data', 'end'
 * and 'error' events) and the callback of a unary call. What reaches the wire is what gRPC's
 * protocol asks for: response headers before the first message (the encodings only to a
 * compressed request), `grpc-status`, `grpc-message` (URI-encoded; none on a plain OK) and the
 * status's metadata as trailers, or all of it in one trailers-only response when no message was
 * sent; a reset or a passed deadline is 'cancelled'.
 */
import { EventEmitter } from "node:events";
import type { IncomingHttpHeaders, ServerHttp2Stream, ServerStreamResponseOptions } from "node:http2";
import { frameMessage } from "./grpc-framing.js";

/** A call's end as handlers hand it over (grpc-js's StatusObject / ServiceError, structurally). */
export interface CallStatus {
  readonly code: number;
  readonly details?: string;
  readonly message?: string;
  readonly metadata?: { toHttp2Headers(): Record<string, string | string[]> } | null;
}

/** The longest delay one setTimeout takes (2^31 − 1 ms, about 24.8 days). */
export const longestTimerMs = 2_147_483_647;

/** The codes this file sends itself. */
const statusCode = { OK: 0, UNKNOWN: 2, DEADLINE_EXCEEDED: 4, INTERNAL: 13 } as const;

/**
 * Response headers to a request that came compressed: as grpc-js sends them (it advertises gzip and
 * deflate, which the reader takes).
 */
const compressedResponseHeaders = {
  ":status": 200,
  "content-type": "application/grpc+proto",
  "grpc-accept-encoding": "identity,deflate,gzip",
  "grpc-encoding": "identity",
} as const;

/**
 * Response headers to an uncompressed request (gRPC's default, and every kernel's): the two the
 * protocol requires. Messages go out uncompressed either way, which an absent `grpc-encoding`
 * says; every header fewer is node:http2 work saved on each call.
 */
const plainResponseHeaders = { ":status": 200, "content-type": "application/grpc+proto" } as const;

/**
 * respond()'s options, shared by every call: no `date` header (gRPC has no use for it and grpc-go's
 * server sends none; node:http2 takes `sendDate` on Node 22, 24 and 26, though its docs list it
 * only for the compatibility API). Frozen: node:http2 reads them and never writes.
 */
export const respondWithTrailers = Object.freeze({
  waitForTrailers: true,
  sendDate: false,
}) as ServerStreamResponseOptions;
export const respondAndEnd = Object.freeze({ endStream: true, sendDate: false }) as ServerStreamResponseOptions;

/**
 * How many bytes a call's stream may hold before write() says false. node:http2's own mark (64 KiB
 * on Node 22+) is below one output chunk's frame, so a stream that waited on it would write one
 * chunk per 'drain'; grpc-js holds 16 messages (1 MiB of 64 KiB chunks) and so does this.
 */
export const writeBufferBytes = 1024 * 1024;

/** Request headers that are the transport's, not the call's metadata (grpc-js removes them too). */
const transportHeaders = new Set(["grpc-timeout", "grpc-encoding", "grpc-accept-encoding", "accept-encoding", "te"]);

/** What get() answers for an absent key: frozen, so a caller that pushes onto it fails loudly. */
const noValues = Object.freeze([]) as unknown as (string | Buffer)[];

/** The request's metadata, read the way grpc-js's Metadata reads it (`-bin` values base64-decoded). */
export class RequestMetadata {
  readonly #headers: IncomingHttpHeaders;
  constructor(headers: IncomingHttpHeaders) {
    this.#headers = headers;
  }

  get(key: string): (string | Buffer)[] {
    const name = key.toLowerCase();
    if (name.startsWith(":") || name === "content-type" || transportHeaders.has(name)) return [];
    const value = this.#headers[name];
    // Absent (every call's trace headers, most of the time): one shared empty list, not one per lookup.
    if (value === undefined) return noValues;
    const values = Array.isArray(value) ? value : name.endsWith("-bin") ? value.split(",") : [value];
    return name.endsWith("-bin") ? values.map((v) => Buffer.from(v.trim(), "base64")) : values;
  }
}

/** The trailers of a plain OK: `grpc-message` is optional and a grpc-go server leaves it out too. */
const okTrailers = { "grpc-status": 0 } as const;

/** The trailers (or trailers-only headers) of a status. */
function statusHeaders(status: CallStatus): Record<string, string | number | string[]> {
  const details = status.details ?? status.message ?? "";
  if (status.code === statusCode.OK && (details === "OK" || details === "") && !status.metadata) return okTrailers;
  return {
    "grpc-status": status.code,
    "grpc-message": encodeURI(details),
    ...(status.metadata ? status.metadata.toHttp2Headers() : {}),
  };
}

/** A handler's thrown or emitted failure as a status (grpc-js's serverErrorToStatus). */
export function statusOf(error: unknown): CallStatus {
  if (typeof error === "object" && error !== null) {
    const e = error as { code?: unknown; details?: unknown; message?: unknown; metadata?: CallStatus["metadata"] };
    const metadata = e.metadata ?? null;
    if (typeof e.code === "number" && Number.isInteger(e.code)) {
      const details = typeof e.details === "string" ? e.details : typeof e.message === "string" ? e.message : "";
      return { code: e.code, details, metadata };
    }
    return { code: statusCode.UNKNOWN, details: typeof e.message === "string" ? e.message : "Unknown Error", metadata };
  }
  return { code: statusCode.UNKNOWN, details: "Unknown Error" };
}

/** What every kind of call shares: the stream, the metadata, the deadline, the status. */
export class Http2ServerCall<Req, Res> extends EventEmitter {
  request: Req = undefined as Req;
  readonly metadata: RequestMetadata;
  cancelled = false;
  readonly #stream: ServerHttp2Stream;
  readonly #serialize: (value: Res) => Buffer;
  readonly #deadline: number;
  #deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  #headersSent = false;
  #ended = false;
  #relayingDrain = false;
  readonly #responseHeaders: typeof compressedResponseHeaders | typeof plainResponseHeaders;

  constructor(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    serialize: (value: Res) => Buffer,
    timeoutMs: number | undefined,
  ) {
    super();
    this.#stream = stream;
    this.#serialize = serialize;
    this.metadata = new RequestMetadata(headers);
    const encoding = headers["grpc-encoding"];
    this.#responseHeaders =
      encoding === undefined || encoding === "identity" ? plainResponseHeaders : compressedResponseHeaders;
    this.#deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
    if (timeoutMs !== undefined) this.#armDeadline(timeoutMs);
    // One plain listener per call ('close' comes once): a `once` wrapper per call costs more.
    stream.on("close", () => {
      if (this.#deadlineTimer) clearTimeout(this.#deadlineTimer);
      if (!this.#ended) this.#cancel();
    });
  }

  /**
   * A handler's emit('error', status) ends the call with that status, as on grpc-js's streams
   * (before the handler's own 'error' listeners run; none needed).
   */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "error") return super.emit(event, ...args);
    this.sendStatus(statusOf(args[0]));
    if (this.listenerCount("error") > 0) super.emit(event, ...args);
    return true;
  }

  /** The stream's 'drain' is relayed once something listens for the call's. */
  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own listener type
  override on(event: string | symbol, listener: (...args: any[]) => void): this {
    if (event === "drain" && !this.#relayingDrain) {
      this.#relayingDrain = true;
      this.#stream.on("drain", () => this.emit("drain"));
    }
    return super.on(event, listener);
  }

  // biome-ignore lint/suspicious/noExplicitAny: EventEmitter's own listener type
  override addListener(event: string | symbol, listener: (...args: any[]) => void): this {
    return this.on(event, listener);
  }

  /** The deadline in ms since the epoch; Infinity when the client set none (as grpc-js says). */
  getDeadline(): number {
    return this.#deadline;
  }

  /** True while the stream holds writeBufferBytes or more, waiting for HTTP/2's window or the socket. */
  get writableNeedDrain(): boolean {
    return this.#stream.writableNeedDrain && this.#stream.writableLength >= writeBufferBytes;
  }

  /**
   * Sends one message; false once the stream holds writeBufferBytes (then wait for 'drain', which
   * comes when it has sent them all).
   */
  write(message: Res): boolean {
    if (this.#ended || this.#stream.destroyed) return true;
    let bytes: Buffer;
    try {
      bytes = frameMessage(this.#serialize(message));
    } catch {
      this.sendStatus({ code: statusCode.INTERNAL, details: "Error serializing response" });
      return true;
    }
    this.#sendHeaders();
    this.#stream.write(bytes);
    return this.#stream.writableLength < writeBufferBytes;
  }

  /** Ends the call OK (or with the status a handler emitted before). */
  end(): void {
    this.sendStatus({ code: statusCode.OK, details: "OK" });
  }

  /** Sends `lastMessage` and ends the call OK, in one write (headers, the message, then trailers). */
  endWith(lastMessage: Res): void {
    this.sendStatus({ code: statusCode.OK, details: "OK" }, lastMessage);
  }

  /** Ends the call with `status`: trailers after what was sent, or a trailers-only response. */
  sendStatus(status: CallStatus, lastMessage?: Res): void {
    if (this.#ended) return;
    let bytes: Buffer | undefined;
    if (lastMessage !== undefined) {
      try {
        bytes = frameMessage(this.#serialize(lastMessage));
      } catch {
        return this.sendStatus({ code: statusCode.INTERNAL, details: "Error serializing response" });
      }
    }
    this.#ended = true;
    if (this.#deadlineTimer) clearTimeout(this.#deadlineTimer);
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    try {
      if (bytes !== undefined) {
        this.#sendHeaders();
        stream.on("wantTrailers", () => stream.sendTrailers(statusHeaders(status)));
        stream.end(bytes);
      } else if (this.#headersSent) {
        stream.on("wantTrailers", () => stream.sendTrailers(statusHeaders(status)));
        stream.end();
      } else {
        stream.respond(
          { ...statusHeaders(status), ":status": 200, "content-type": "application/grpc+proto" },
          respondAndEnd,
        );
      }
    } catch {
      // The stream went between the check and the write: the client is gone.
    }
  }

  /**
   * Ends the call DEADLINE_EXCEEDED in `ms`: in steps of at most longestTimerMs, since a longer
   * setTimeout fires after 1 ms (grpc-timeout reaches 99,999,999 hours; a 30-day one is "720H").
   */
  #armDeadline(ms: number): void {
    const step = Math.min(ms, longestTimerMs);
    this.#deadlineTimer = setTimeout(() => {
      if (ms > step) return this.#armDeadline(ms - step);
      this.sendStatus({ code: statusCode.DEADLINE_EXCEEDED, details: "Deadline exceeded" });
      this.#cancel();
    }, step);
  }

  #sendHeaders(): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    this.#stream.respond(this.#responseHeaders, respondWithTrailers);
  }

  #cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#ended = true;
    this.emit("cancelled", "cancelled");
  }
}

/** The callback a unary handler answers with (grpc-js's sendUnaryData). */
export function unaryCallback<Res>(call: Http2ServerCall<unknown, Res>) {
  return (error: unknown, value?: Res | null): void => {
    if (error) {
      call.sendStatus(statusOf(error));
      return;
    }
    if (value === undefined || value === null) {
      call.sendStatus({ code: statusCode.INTERNAL, details: "the handler answered no message" });
      return;
    }
    call.sendStatus({ code: statusCode.OK, details: "OK" }, value);
  };
}
