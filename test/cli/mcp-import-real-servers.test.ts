// `harness-tool mcp import` of three MCP servers the MCP project publishes on npm (devDependencies
// at exact versions: server-memory, server-everything, server-filesystem), imported as a user
// would, the generated providers launched through the go-plugin host and conformance-checked by
// `harness-tool check`, and a call through each provider compared with the same call made to the
// server directly with the MCP SDK's client.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { repoRoot } from "../support/buf.js";
import { cli } from "./support/run-cli.js";
import { generate, importServer, launchImported } from "./support/imported-provider.js";

const serverEntry = (name: string) => path.join(repoRoot, "node_modules/@modelcontextprotocol", name, "dist/index.js");
const scratch = mkdtempSync(path.join(tmpdir(), "harness-tool-mcp-real-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The same call made to the server directly. */
async function direct(command: string[], env: Record<string, string>, name: string, args: Record<string, unknown>) {
  const client = new Client({ name: "direct", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: command[0]!,
      args: command.slice(1),
      env: { ...process.env, ...env } as Record<string, string>,
      stderr: "ignore",
    }),
  );
  try {
    return await client.callTool({ name, arguments: args });
  } finally {
    await client.close();
  }
}

interface RealServer {
  readonly name: string;
  readonly command: string[];
  /** --env for the import (and for the direct call, pointed at its own files). */
  readonly env: (folder: string) => Record<string, string>;
  readonly call: { readonly tool: string; readonly args: (folder: string) => Record<string, unknown> };
  /** The provider's result and the direct result, made comparable. */
  readonly same: (provider: Record<string, unknown>, direct: Record<string, unknown>) => void;
  readonly leftOut: readonly string[];
}

const text = (result: Record<string, unknown>) => (result["content"] as { text?: string }[]).map((c) => c.text);

const servers: RealServer[] = [
  {
    name: "memory",
    command: [process.execPath, serverEntry("server-memory")],
    env: (folder) => ({ MEMORY_FILE_PATH: path.join(folder, "memory.jsonl") }),
    call: {
      tool: "create_entities",
      args: () => ({ entities: [{ name: "harness", entityType: "tool", observations: ["imported"] }] }),
    },
    same: (provider, direct) => assert.deepEqual(provider, direct["structuredContent"]),
    leftOut: [],
  },
  {
    name: "everything",
    command: [process.execPath, serverEntry("server-everything"), "stdio"],
    env: () => ({}),
    call: { tool: "get-sum", args: () => ({ a: 2, b: 40 }) },
    same: (provider, direct) => assert.deepEqual(text(provider), text(direct)),
    leftOut: [],
  },
  {
    name: "filesystem",
    command: [process.execPath, serverEntry("server-filesystem")],
    env: () => ({}),
    call: { tool: "read_text_file", args: (folder) => ({ path: path.join(folder, "note.txt") }) },
    same: (provider, direct) => assert.deepEqual(provider, direct["structuredContent"]),
    leftOut: ["read_media_file"],
  },
];

for (const server of servers) {
  describe(`mcp import: @modelcontextprotocol/server-${server.name}`, () => {
    const folder = path.join(scratch, server.name);
    const dir = path.join(folder, server.name);
    const data = path.join(folder, "data");
    mkdirSync(data, { recursive: true });
    writeFileSync(path.join(data, "note.txt"), "a note\n");
    const command = server.name === "filesystem" ? [...server.command, data] : server.command;

    it("imports, generates, serves and answers as the server does directly", async () => {
      const env = server.env(path.join(folder, "provider-data"));
      mkdirSync(path.join(folder, "provider-data"), { recursive: true });
      const { run } = await importServer(
        Object.entries(env).map(([k, v]) => `--env=${k}=${v}`),
        command,
        dir,
      );
      for (const tool of server.leftOut) assert.match(run.out, new RegExp(`left out ${tool}: `));
      if (server.name === "memory") {
        // docs/guide.md shows the import's read_graph rpc: it is what the import writes.
        const guide = readFileSync(path.join(repoRoot, "docs/guide.md"), "utf8");
        const shown = /<!-- mcp-import: read_graph -->\n```proto\n([\s\S]*?)```/.exec(guide)?.[1];
        assert.ok(shown, "docs/guide.md shows read_graph");
        assert.ok(readFileSync(path.join(dir, "proto/memory/v1/memory.proto"), "utf8").includes(shown), shown);
      }
      generate(dir);
      const provider = await launchImported(dir);
      try {
        await provider.configure({});
        const { events } = await provider.invoke({
          id: "1",
          toolName: server.call.tool,
          arguments: server.call.args(data) as never,
          callContext: { workingDirectory: data },
        }).done;
        const last = events.at(-1)?.event;
        assert.equal(last?.case, "result", JSON.stringify(last));
        mkdirSync(path.join(folder, "direct-data"), { recursive: true });
        const directResult = await direct(
          command,
          server.env(path.join(folder, "direct-data")),
          server.call.tool,
          server.call.args(data),
        );
        server.same(
          last?.case === "result" ? (last.value.payload as Record<string, unknown>) : {},
          directResult as Record<string, unknown>,
        );
      } finally {
        await provider.kill();
      }
    });

    it("passes harness-tool check", async () => {
      writeFileSync(path.join(folder, "check-config.json"), "{}\n");
      const checked = await cli(["check", dir, "--config", path.join(folder, "check-config.json")]);
      assert.equal(checked.code, 0, checked.out + checked.err);
    });
  });
}
