// examples/web's web_fetch is GET-only, as the kernel's reference catalog requires of a data_source
// web_fetch: its input has nothing but the URL (no method, body or headers to ask for), and every
// request it makes, redirects followed included (a 307 and a 308 keep the method), is a GET without
// a body.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { handlers } from "../../examples/web/src/handlers.js";
import { webFetchInputSchema } from "../../examples/web/src/gen/examples/web/v1/web_tool_schemas.js";

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly bodyBytes: number;
}

describe("examples/web: web_fetch is GET-only", () => {
  let server: Server;
  let base = "";
  const seen: Seen[] = [];
  const bodyOf = async (req: IncomingMessage): Promise<number> => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    return bytes;
  };
  before(async () => {
    server = createServer(async (req, res) => {
      const path = req.url ?? "/";
      seen.push({ method: req.method ?? "", path, bodyBytes: await bodyOf(req) });
      const redirect = /^\/redirect-(30[1278])$/.exec(path);
      if (redirect) {
        res.writeHead(Number(redirect[1]), { location: "/page" });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("the page");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fetchPage = (url: string) =>
    handlers.webFetch({ url }, {
      config: { api_key: "k", endpoint: "http://127.0.0.1:9/", allowed_domains: ["127.0.0.1"] },
      signal: AbortSignal.timeout(10_000),
    } as never);

  it("asks for nothing but the URL: no method, body or headers", () => {
    assert.deepEqual(Object.keys(webFetchInputSchema.properties), ["url"]);
    assert.deepEqual(webFetchInputSchema.required, ["url"]);
  });

  it("makes one bodiless GET for a page", async () => {
    seen.length = 0;
    const page = await fetchPage(`${base}/page`);
    assert.equal(page.body, "the page");
    assert.deepEqual(seen, [{ method: "GET", path: "/page", bodyBytes: 0 }]);
  });

  for (const status of [301, 302, 307, 308]) {
    it(`follows a ${status} redirect with a GET again`, async () => {
      seen.length = 0;
      const page = await fetchPage(`${base}/redirect-${status}`);
      assert.equal(page.status, 200);
      assert.deepEqual(seen, [
        { method: "GET", path: `/redirect-${status}`, bodyBytes: 0 },
        { method: "GET", path: "/page", bodyBytes: 0 },
      ]);
    });
  }
});
