/**
 * The inspector's local web server: 127.0.0.1 only, everything under a random token path
 * (`/<token>/...`) so that nothing, not even the page's script or the event stream, is served to
 * someone who has not been shown the URL. A request with a foreign Host (DNS rebinding) or a
 * cross-site Origin is refused as well. Events reach the page as server-sent events.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { InspectSession } from "./session.js";
import { InspectRequestError } from "./session-state.js";
import { loadPageAssets, pageHtml, type PageAssets } from "./page-assets.js";
import type { Json, StreamMessage } from "../protocol/page-protocol.js";

/** Options of startInspectServer. */
export interface InspectServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Fixed for tests; default 24 random bytes, base64url. */
  readonly token?: string;
}

/** A running inspector server. */
export interface InspectServer {
  /** The page's address, token included: what the terminal prints. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Largest request body accepted (a call's arguments, a config). */
const bodyLimitBytes = 4 * 1024 * 1024;

const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { ...securityHeaders, "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
}

async function readJson(req: IncomingMessage): Promise<Record<string, Json>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > bodyLimitBytes) throw new InspectRequestError(`the request body is larger than ${bodyLimitBytes} bytes`);
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (error) {
    throw new InspectRequestError(`the request body is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new InspectRequestError("the request body must be a JSON object");
  return value as Record<string, Json>;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a request is served from: the session, the page's assets and the open event streams. */
interface ServeContext {
  session: InspectSession;
  assets: PageAssets;
  streams: Set<ServerResponse>;
}

/** Streams the session's messages as server-sent events, a snapshot first, until the page goes. */
function streamEvents({ session, streams }: ServeContext, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, {
    ...securityHeaders,
    "content-type": "text/event-stream; charset=utf-8",
    connection: "keep-alive",
  });
  const write = (message: StreamMessage) => res.write(`data: ${JSON.stringify(message)}\n\n`);
  // Subscribe before the snapshot: nothing falls between them (the page dedupes by seq and id).
  const unsubscribe = session.subscribe(write);
  write({ kind: "snapshot", snapshot: session.snapshot() });
  streams.add(res);
  const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
  keepAlive.unref();
  req.on("close", () => {
    clearInterval(keepAlive);
    unsubscribe();
    streams.delete(res);
  });
}

/** Answers one `METHOD /path` route below the token. */
async function serveRoute(
  context: ServeContext,
  route: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { session, assets } = context;
  switch (route) {
    case "GET /":
      return send(res, 200, "text/html; charset=utf-8", pageHtml(assets));
    case `GET /${assets.scriptName}`:
      return send(res, 200, "text/javascript; charset=utf-8", assets.script);
    case `GET /${assets.styleName}`:
      return send(res, 200, "text/css; charset=utf-8", assets.style);
    case "GET /api/state":
      return sendJson(res, 200, session.snapshot());
    case "GET /events":
      return streamEvents(context, req, res);
    case "POST /api/configure": {
      const body = await readJson(req);
      return sendJson(res, 200, await session.configure(body as never));
    }
    case "POST /api/invoke":
      return sendJson(res, 200, session.invoke((await readJson(req)) as never));
    case "POST /api/hook":
      return sendJson(res, 200, session.hook((await readJson(req)) as never));
    case "POST /api/cancel": {
      const body = await readJson(req);
      session.cancel(String(body["id"] ?? ""));
      return sendJson(res, 200, { ok: true });
    }
    case "POST /api/preview":
      return sendJson(res, 200, await session.preview((await readJson(req)) as never));
    case "POST /api/render":
      return sendJson(res, 200, await session.render((await readJson(req)) as never));
    case "POST /api/restart":
      return sendJson(res, 200, await session.restart());
    case "POST /api/replies":
      return sendJson(res, 200, session.setReplies((await readJson(req)) as never));
    default:
      return send(res, 404, "text/plain; charset=utf-8", "not found\n");
  }
}

/** Answers a request that failed: a bad request is the page's fault (400), anything else the inspector's (500). */
function sendFailure(session: InspectSession, res: ServerResponse, error: unknown): void {
  if (res.headersSent) return void res.end();
  if (error instanceof InspectRequestError) sendJson(res, 400, { error: session.redactText(error.message) });
  else
    sendJson(res, 500, {
      error: session.redactText(`the inspector failed: ${error instanceof Error ? error.message : String(error)}`),
    });
}

/** Listens on 127.0.0.1 (any free port when `port` is undefined); resolves with the port taken. */
async function listenLocally(server: Server, port: number | undefined): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: port ?? 0 }, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Serves `session` on 127.0.0.1; resolves once listening. */
export async function startInspectServer(
  session: InspectSession,
  options: InspectServerOptions = {},
): Promise<InspectServer> {
  const token = options.token ?? randomBytes(24).toString("base64url");
  const context: ServeContext = { session, assets: loadPageAssets(), streams: new Set<ServerResponse>() };
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!allowedHosts().has(req.headers.host ?? "")) return send(res, 421, "text/plain; charset=utf-8", "wrong Host\n");
    const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
    const [, given = "", ...rest] = url.pathname.split("/");
    if (!sameToken(given, token)) return send(res, 404, "text/plain; charset=utf-8", "not found\n");
    // The page's relative URLs need the trailing slash.
    if (rest.length === 0) {
      res.writeHead(308, { ...securityHeaders, location: `/${token}/` });
      return void res.end();
    }
    if (req.method === "POST") {
      // Only the page itself posts: a browser always sends Origin on a cross-site POST.
      const origin = req.headers.origin;
      if (origin !== undefined && !allowedHosts().has(origin.replace(/^http:\/\//, "")))
        return sendJson(res, 403, { error: "cross-origin request refused" });
    }
    return serveRoute(context, `${req.method} /${rest.join("/")}`, req, res);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendFailure(session, res, error));
  });
  port = await listenLocally(server, options.port);
  return {
    url: `http://127.0.0.1:${port}/${token}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of context.streams) res.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
