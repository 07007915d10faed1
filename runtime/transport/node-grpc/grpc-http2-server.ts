/**
 * A gRPC server on node:http2 with our framing (grpc-framing.ts), serving the same service
 * definitions and handler tables as grpc-js's Server (`addService(definition, handlers)`: unary,
 * server-streaming and bidi-streaming calls, their messages through the definitions'
 * (de)serializers) so that the handlers are written once. It listens on a unix socket or TCP, in
 * plaintext or with mutual TLS; an unknown method is UNIMPLEMENTED, a content type other than
 * gRPC's is HTTP 415, a message above the receive limit RESOURCE_EXHAUSTED, a `grpc-timeout`
 * ends the call DEADLINE_EXCEEDED, and a stream the client resets is the call's 'cancelled'.
 */
import http2 from "node:http2";
import type { IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream } from "node:http2";
import type { MethodDefinition, ServiceDefinition, UntypedServiceImplementation } from "@grpc/grpc-js";
import { MessageReader, MessageTooLarge, parseGrpcTimeout } from "./grpc-framing.js";
import { Http2ServerCall, respondAndEnd, unaryCallback, type CallStatus } from "./server-call.js";

/** The server's TLS: its own key and certificate, and the one CA a client's certificate must chain to. */
export interface Http2GrpcTls {
  readonly key: string;
  readonly cert: string;
  readonly ca: string;
}

/** Options of Http2GrpcServer. */
export interface Http2GrpcServerOptions {
  /** The largest request message taken, bytes; -1 (the default) for no limit. */
  readonly maxReceiveMessageLength?: number;
  /** node:http2's server options added (streamResetBurst, streamResetRate, settings). */
  readonly http2?: http2.ServerOptions;
  /** Mutual TLS; plaintext without. */
  readonly tls?: Http2GrpcTls;
}

type AnyHandler = (call: Http2ServerCall<unknown, unknown>, callback?: unknown) => void;

/** One call's parts, as the stream arrived. */
interface CallParts {
  readonly call: Http2ServerCall<unknown, unknown>;
  readonly stream: ServerHttp2Stream;
  readonly reader: MessageReader;
  readonly definition: MethodDefinition<unknown, unknown>;
  readonly handler: AnyHandler;
}

interface Route {
  readonly definition: MethodDefinition<unknown, unknown>;
  readonly handler: AnyHandler;
}

const code = { UNKNOWN: 2, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** grpc-js's Server surface that the provider uses, over node:http2. */
export class Http2GrpcServer {
  readonly #routes = new Map<string, Route>();
  readonly #sessions = new Set<ServerHttp2Session>();
  readonly #maxReceive: number;
  /** The node:http2 server (its 'session' events are the host's connections). */
  readonly http2Server: http2.Http2Server | http2.Http2SecureServer;

  constructor(options: Http2GrpcServerOptions = {}) {
    this.#maxReceive = options.maxReceiveMessageLength ?? -1;
    // As grpc-js: no cap on the session's memory (node:http2's 10 MB slows a fast stream down, and
    // the calls bound what they hold) nor on a header block's length.
    const common = {
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
      ...options.http2,
    };
    this.http2Server = options.tls
      ? http2.createSecureServer({
          ...common,
          key: options.tls.key,
          cert: options.tls.cert,
          ca: options.tls.ca,
          requestCert: true,
          rejectUnauthorized: true,
          ALPNProtocols: ["h2"],
        })
      : http2.createServer(common);
    this.http2Server.on("session", (session: ServerHttp2Session) => {
      this.#sessions.add(session);
      session.on("error", () => {});
      session.once("close", () => this.#sessions.delete(session));
    });
    this.http2Server.on("stream", (stream, headers) => this.#onStream(stream, headers));
  }

  /** Adds a service: each method's path routed to the handler of the same key. */
  addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void {
    for (const [key, method] of Object.entries(definition)) {
      const handler = implementation[key];
      if (typeof handler !== "function") throw new Error(`no handler for ${method.path} (add one keyed ${key})`);
      this.#routes.set(method.path, {
        definition: method as MethodDefinition<unknown, unknown>,
        handler: handler as unknown as AnyHandler,
      });
    }
  }

  /** Listens on `unix:<path>` or `<host>:<port>`. */
  bind(target: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = this.http2Server;
      const failed = (error: Error) => reject(error);
      server.once("error", failed);
      const listening = () => {
        server.off("error", failed);
        resolve();
      };
      if (target.startsWith("unix:")) server.listen(target.slice("unix:".length), listening);
      else {
        const at = target.lastIndexOf(":");
        server.listen(Number(target.slice(at + 1)), target.slice(0, at), listening);
      }
    });
  }

  /** Stops accepting connections; the open ones carry on (grpc-js's unbind). */
  unbind(_target?: string): void {
    this.http2Server.close();
  }

  /** Ends every connection at once and stops listening (grpc-js's forceShutdown). */
  forceShutdown(): void {
    for (const session of this.#sessions) session.destroy();
    this.#sessions.clear();
    this.http2Server.close();
  }

  #onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on("error", ignoreError);
    const contentType = headers["content-type"];
    if (typeof contentType !== "string" || !contentType.startsWith("application/grpc")) {
      stream.respond({ ":status": 415 }, { endStream: true });
      return;
    }
    const path = headers[":path"] ?? "";
    const route = this.#routes.get(path);
    if (!route) {
      trailersOnly(stream, { code: code.UNIMPLEMENTED, details: `The server does not implement the method ${path}` });
      return;
    }
    const timeoutHeader = headers["grpc-timeout"];
    let timeoutMs: number | undefined;
    if (typeof timeoutHeader === "string") {
      timeoutMs = parseGrpcTimeout(timeoutHeader);
      if (timeoutMs === undefined) {
        trailersOnly(stream, { code: code.INTERNAL, details: `Invalid grpc-timeout value "${timeoutHeader}"` });
        return;
      }
    }
    const { definition, handler } = route;
    const call = new Http2ServerCall<unknown, unknown>(
      stream,
      headers,
      definition.responseSerialize as (value: unknown) => Buffer,
      timeoutMs,
    );
    const encoding = headers["grpc-encoding"];
    const reader = new MessageReader(this.#maxReceive, typeof encoding === "string" ? encoding : "identity");
    const parts = { call, stream, reader, definition, handler };
    if (definition.requestStream) streamRequests(parts);
    else singleRequest(parts);
  }
}

/** A stream's error is its 'close' with an error code, which the call handles: one function for all. */
function ignoreError(): void {}

function trailersOnly(stream: ServerHttp2Stream, status: CallStatus): void {
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc+proto",
      "grpc-status": status.code,
      "grpc-message": encodeURI(status.details ?? ""),
    },
    respondAndEnd,
  );
}

/**
 * Reads the stream's DATA as messages: `each` for every decoded one, `end` at the half-close. A
 * message too large, compressed in a way not taken or not decodable ends the call, and nothing
 * more is read.
 */
function readMessages(
  call: Http2ServerCall<unknown, unknown>,
  stream: ServerHttp2Stream,
  reader: MessageReader,
  deserialize: (bytes: Buffer) => unknown,
  on: { each: (message: unknown) => void; end: () => void },
): void {
  let failed = false;
  stream.on("data", (chunk: Buffer) => {
    if (failed) return;
    let frames: Buffer[];
    try {
      frames = reader.push(chunk);
    } catch (error) {
      failed = true;
      const tooLarge = error instanceof MessageTooLarge;
      call.sendStatus({ code: tooLarge ? code.RESOURCE_EXHAUSTED : code.INTERNAL, details: (error as Error).message });
      return;
    }
    for (const frame of frames) {
      let message: unknown;
      try {
        message = deserialize(frame);
      } catch {
        failed = true;
        // As grpc-js says it (without GRPC_NODE_DEBUG_SEND_ERROR_DETAILS).
        call.sendStatus({ code: code.INTERNAL, details: "Error deserializing request" });
        return;
      }
      on.each(message);
    }
  });
  stream.on("end", () => {
    if (!failed && !call.cancelled) on.end();
  });
}

/** Unary and server-streaming calls: one request message, then the half-close, then the handler. */
function singleRequest({ call, stream, reader, definition, handler }: CallParts): void {
  const messages: unknown[] = [];
  readMessages(call, stream, reader, definition.requestDeserialize, {
    each: (message) => messages.push(message),
    end: () => {
      const kind = definition.responseStream ? "server streaming" : "unary";
      if (messages.length !== 1) {
        const what = messages.length === 0 ? "no request message" : "a second request message";
        call.sendStatus({
          code: code.UNIMPLEMENTED,
          details: `Received ${what} for ${kind} method ${definition.path}`,
        });
        return;
      }
      call.request = messages[0];
      runHandler(call, () => (definition.responseStream ? handler(call) : handler(call, unaryCallback(call))));
    },
  });
}

/** Bidi (and client) streaming: the handler first, then each message as 'data', the half-close as 'end'. */
function streamRequests({ call, stream, reader, definition, handler }: CallParts): void {
  if (!runHandler(call, () => handler(call))) return;
  readMessages(call, stream, reader, definition.requestDeserialize, {
    each: (message) => call.emit("data", message),
    end: () => call.emit("end"),
  });
}

/** Runs a handler; one that throws ends the call UNKNOWN, as grpc-js does (false then). */
function runHandler(call: Http2ServerCall<unknown, unknown>, run: () => void): boolean {
  try {
    run();
    return true;
  } catch {
    call.sendStatus({ code: code.UNKNOWN, details: "Unknown error" });
    return false;
  }
}
