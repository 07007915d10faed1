// `harness-tool mcp import` of three MCP servers the MCP project publishes on npm (devDependencies
// at exact versions: server-memory, server-everything, server-filesystem), imported as a user
// would, the generated providers launched through the go-plugin host and conformance-checked by
// `harness-tool check`, and a call through each provider compared with the same call made to the
// server directly with the MCP SDK's client. Then the memory and everything providers, bundled
// (`harness-tool bundle`), are launched by the kernel's own pluginruntime.Launch (its source
// snapshot, built with Go; the Go test of test/cli/real-providers.test.ts), configured with nothing
// and answering a call. (The filesystem server takes the call's working directory as its root:
// the Go test's own folder, which holds nothing to read.)
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { chmodSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { kernelSkip } from "../runtime/kernel/kernel-snapshot.js";
import { repoRoot } from "../support/buf.js";
import { cli } from "./support/run-cli.js";
import { generate, importServer, launchImported } from "./support/imported-provider.js";
import { type CorpusCase, launchByKernel } from "./support/kernel-corpus.js";

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
  /** What the kernel's call must answer with, when the kernel launches it. */
  readonly kernelExpect?: string;
  /** The kernel's call, when not `call` (memory: the graph the first call filled). */
  readonly kernelCall?: { readonly tool: string; readonly args: Record<string, unknown> };
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
    kernelExpect: "imported",
    kernelCall: { tool: "read_graph", args: {} },
  },
  {
    name: "everything",
    command: [process.execPath, serverEntry("server-everything"), "stdio"],
    env: () => ({}),
    call: { tool: "get-sum", args: () => ({ a: 2, b: 40 }) },
    same: (provider, direct) => assert.deepEqual(text(provider), text(direct)),
    leftOut: [],
    kernelExpect: "is 42",
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

/** The imported providers, by server name, once each is generated. */
const imported = new Map<string, string>();

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
      imported.set(server.name, dir);
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

/** Starts server-everything over streamable HTTP on a free port; its URL, once it listens. */
async function httpEverything(): Promise<{ url: string; stop: () => void }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(process.execPath, [serverEntry("server-everything"), "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not listen within 20 s")), 20_000);
    child.stderr.on("data", (chunk: Buffer) => {
      if (chunk.toString("utf8").includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}

describe("mcp import: server-everything over streamable HTTP (--url)", () => {
  it("imports from the URL and proxies a call to it", async () => {
    const server = await httpEverything();
    const dir = path.join(scratch, "http", "everything_http");
    try {
      const { run } = await importServer(["--url", server.url], [], dir);
      assert.match(run.out, /imported 13 tools/);
      assert.match(
        readFileSync(path.join(dir, "proto/everything_http/v1/everything_http.proto"), "utf8"),
        /optional string url = 1;/,
      );
      generate(dir);
      const provider = await launchImported(dir);
      try {
        // The configuration's url is the one connected to: nothing listens at port 1.
        await assert.rejects(provider.configure({ url: "http://127.0.0.1:1/mcp" }));
        await provider.configure({});
        const { events } = await provider.invoke({
          id: "1",
          toolName: "get-sum",
          arguments: { a: 2, b: 40 },
          callContext: { workingDirectory: dir },
        }).done;
        const last = events.at(-1)?.event;
        assert.equal(last?.case, "result", JSON.stringify(last));
        assert.deepEqual(last?.case === "result" && text(last.value.payload as Record<string, unknown>), [
          "The sum of 2 and 40 is 42.",
        ]);
      } finally {
        await provider.kill();
      }
    } finally {
      server.stop();
    }
  });
});

describe("mcp import: the bundled providers launched by the kernel's pluginruntime.Launch", {
  skip: kernelSkip(),
}, () => {
  it("configures each with nothing and answers a call", { timeout: 600_000 }, async () => {
    const cases: CorpusCase[] = [];
    for (const server of servers.filter(
      (s): s is RealServer & { kernelExpect: string } => s.kernelExpect !== undefined,
    )) {
      const dir = imported.get(server.name);
      assert.ok(dir, `${server.name} was imported above`);
      const bundled = await cli([
        "bundle",
        path.join(dir, "src/main.ts"),
        "--outfile",
        path.join(dir, "dist/provider.mjs"),
      ]);
      assert.equal(bundled.code, 0, bundled.err);
      // The kernel starts an executable with a PATH holding no node: this one names node itself.
      const executable = path.join(dir, "provider");
      writeFileSync(
        executable,
        `#!/bin/sh\nexec '${process.execPath}' '${path.join(dir, "dist/provider.mjs")}' "$@"\n`,
      );
      chmodSync(executable, 0o755);
      const home = path.join(dir, "home");
      mkdirSync(home, { recursive: true });
      const folder = path.join(scratch, server.name);
      cases.push({
        name: server.name,
        executable,
        home,
        tool: server.kernelCall?.tool ?? server.call.tool,
        args: server.kernelCall?.args ?? server.call.args(path.join(folder, "data")),
        config: {},
        expect: server.kernelExpect,
      });
    }
    const { code, output } = await launchByKernel(cases, "mcp-import-tree");
    assert.equal(code, 0, output);
    for (const c of cases)
      assert.match(output, new RegExp(`--- PASS: TestHarnessToolCorpus_launchAndCall/${c.name}`), output);
  });
});
