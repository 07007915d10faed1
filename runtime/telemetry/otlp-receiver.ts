/**
 * A local OTLP/HTTP trace receiver on 127.0.0.1: the test host and `harness-tool invoke --trace`
 * point a provider's exporter at it (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and read back the spans it
 * exported, in either OTLP encoding. Development tooling: the provider runtime never loads it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { decodeTraceRequestJson, decodeTraceRequestProtobuf, type ReceivedSpan } from "./otlp-trace-request.js";

/** A running receiver. */
export interface OtlpReceiver {
  /** The traces endpoint, `http://127.0.0.1:<port>/v1/traces`. */
  readonly tracesEndpoint: string;
  /** Every span received so far, in arrival order. */
  spans(): readonly ReceivedSpan[];
  /** Every export body received so far, as sent (gzip undone), decodable or not: what reached the collector, byte for byte. */
  bodies(): readonly Uint8Array[];
  /** Requests it could not decode, with the reason. */
  readonly failures: readonly string[];
  close(): Promise<void>;
}

/** The largest export body taken (a batch of 512 spans is far below). */
const maxBodyBytes = 16 * 1024 * 1024;

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        reject(new Error(`export body over ${maxBodyBytes} bytes`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.once("end", () => resolve(Buffer.concat(chunks)));
    request.once("error", reject);
  });
}

/** Starts a receiver on an ephemeral loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const bodies: Uint8Array[] = [];
  const failures: string[] = [];
  const reply = (response: ServerResponse, status: number, contentType: string, body: string | Uint8Array) => {
    response.writeHead(status, { "content-type": contentType }).end(body);
  };
  const server = createServer((request, response) => {
    void (async () => {
      const contentType = request.headers["content-type"] ?? "";
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        failures.push(`unexpected ${request.method} ${request.url}`);
        return reply(response, 404, "text/plain", "only POST /v1/traces");
      }
      try {
        let body = await readBody(request);
        if (request.headers["content-encoding"] === "gzip") body = gunzipSync(body);
        bodies.push(body);
        if (contentType.startsWith("application/json")) {
          received.push(...decodeTraceRequestJson(body.toString("utf8")));
          return reply(response, 200, "application/json", "{}");
        }
        received.push(...decodeTraceRequestProtobuf(body));
        // An empty ExportTraceServiceResponse.
        return reply(response, 200, "application/x-protobuf", new Uint8Array());
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
        return reply(response, 400, "text/plain", "undecodable export");
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    tracesEndpoint: `http://127.0.0.1:${port}/v1/traces`,
    spans: () => [...received],
    bodies: () => [...bodies],
    failures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
