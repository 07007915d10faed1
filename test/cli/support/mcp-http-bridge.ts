// A streamable HTTP endpoint in front of a stdio MCP server, for clients that connect by URL only
// (the MCP project's conformance suite): each HTTP session starts its own stdio server and every
// JSON-RPC message is passed through unchanged, both ways, with the MCP SDK's transports.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** A running bridge: its URL, and close() ending the HTTP server and every stdio server. */
export interface McpHttpBridge {
  readonly url: string;
  close(): Promise<void>;
}

/** One HTTP session joined to one stdio server. */
async function session(
  command: string,
  args: readonly string[],
  cwd: string,
  sessions: Map<string, StreamableHTTPServerTransport>,
): Promise<StreamableHTTPServerTransport> {
  const stdio = new StdioClientTransport({ command, args: [...args], cwd, stderr: "ignore" });
  const http: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) => void sessions.set(sessionId, http),
  });
  // A server's message answering (or about) a request goes back on that request's HTTP stream.
  stdio.onmessage = (message: JSONRPCMessage) => {
    const id = "id" in message && !isJSONRPCRequest(message) ? message.id : undefined;
    void http.send(message, id === undefined ? {} : { relatedRequestId: id }).catch(() => undefined);
  };
  http.onmessage = (message) => void stdio.send(message).catch(() => undefined);
  http.onclose = () => void stdio.close();
  await stdio.start();
  return http;
}

/** Serves `command args` (a stdio MCP server) over streamable HTTP on 127.0.0.1 at /mcp. */
export async function startMcpHttpBridge(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<McpHttpBridge> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server: Server = createServer((request, response) => {
    void (async () => {
      const id = request.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      transport ??= await session(command, args, cwd, sessions);
      await transport.handleRequest(request, response);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
