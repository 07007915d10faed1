// `harness-tool mcp serve` end to end: the examples served over stdio as a user's MCP client starts
// them (`harness-tool mcp serve <example>` as a child process), driven by the MCP SDK's own Client
// through its StdioClientTransport; by the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli,
// pinned) as an independent client; and by the MCP project's conformance suite, where its scenarios
// fit any server. Each server launches its example through the handshake.
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  type ClientCapabilities,
  ElicitRequestSchema,
  type ElicitResult,
  LoggingMessageNotificationSchema,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { repoRoot } from "../support/buf.js";
import { buildBenchGo } from "../../bench/kernel-host.js";
import { writeProviderScript } from "../support/provider-script.js";
import { startMcpHttpBridge } from "./support/mcp-http-bridge.js";

const bin = path.join(repoRoot, "cli/harness-tool.mjs");
const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-serve-"));
/** Every connected client, closed (ending its server) once the file is done, filtered runs too. */
const clients: Client[] = [];
after(async () => {
  await Promise.all(clients.map((client) => client.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** A JSON config file in the test's folder. */
function configFile(name: string, config: object): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** What a served example's client saw besides the responses. */
interface Served {
  readonly client: Client;
  readonly logs: { logger?: string | undefined; data: unknown }[];
  readonly stderr: () => string;
}

/** Starts `harness-tool mcp serve <args>` as an MCP client does and connects the SDK's Client to it. */
async function serve(
  args: readonly string[],
  options: {
    capabilities?: ClientCapabilities;
    elicit?: (message: string) => ElicitResult;
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "serve", ...args],
    cwd: repoRoot,
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), ...(options.env as Record<string, string>) },
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "mcp-serve-test", version: "1.0.0" }, { capabilities: options.capabilities ?? {} });
  const logs: Served["logs"] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push({ logger: n.params.logger, data: n.params.data });
  });
  const elicit = options.elicit;
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params.message));
  await client.connect(transport);
  clients.push(client);
  return { client, logs, stderr: () => stderr };
}

/** Whether a process's command line holds `needle`. */
function processRunning(needle: string): boolean {
  return readdirSync("/proc")
    .filter((pid) => /^\d+$/.test(pid))
    .some((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").includes(needle);
      } catch {
        return false;
      }
    });
}

/** Polls until `running` is what processRunning(needle) says, for at most `withinMs`; whether it got there. */
async function processState(needle: string, running: boolean, withinMs: number): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < withinMs; ) {
    if (processRunning(needle) === running) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return processRunning(needle) === running;
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe("exec served over MCP: annotations, a streamed call, an error, a deadline, a cancellation", async () => {
  const config = configFile("exec.json", { allowed_roots: [dir] });
  const { client, logs } = await serve(["examples/exec", "--config", config, "--cwd", dir]);

  it("lists bash with its schemas and the hints of a high-risk resource", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ["bash"],
    );
    const bash = tools[0];
    assert.deepEqual(bash?.annotations, {
      title: "Bash",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    assert.deepEqual(bash?.inputSchema.required, ["command"]);
    assert.deepEqual(bash?.outputSchema?.required, ["exit_code"]);
    assert.equal(bash?._meta?.["harness-tool/kind"], "resource");
  });

  it("streams the output as progress and logging notifications, then the result as structuredContent and text", async () => {
    const progress: Progress[] = [];
    const result = (await client.callTool(
      { name: "bash", arguments: { command: "echo first; sleep 0.2; echo second" } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    )) as CallToolResult;
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { exit_code: 0 });
    assert.deepEqual(JSON.parse(text(result)), { exit_code: 0 });
    const messages = progress.map((p) => p.message);
    assert.ok(
      messages.some((m) => m?.includes("first")),
      JSON.stringify(messages),
    );
    assert.ok(
      messages.some((m) => m?.includes("second")),
      JSON.stringify(messages),
    );
    assert.ok(messages.includes("exit status 0"), JSON.stringify(messages));
    assert.deepEqual(
      progress.map((p) => p.progress),
      progress.map((_, i) => i + 1),
    );
    const stdout = logs.filter((l) => l.logger === "bash/stdout").map((l) => l.data);
    assert.ok(stdout.join("").includes("first\n") && stdout.join("").includes("second\n"), JSON.stringify(stdout));
  });

  it("returns a ToolError as an isError result naming its category", async () => {
    const result = (await client.callTool({ name: "bash", arguments: {} })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(
      text(result),
      /^invalid_arguments: the arguments of bash do not match its input_schema: \/command is required/,
    );
    const error = result._meta?.["harness-tool/error"] as { category: string; retryable: boolean };
    assert.equal(error.category, "invalid_arguments");
    const unknown = (await client.callTool({ name: "no_such_tool", arguments: {} })) as CallToolResult;
    assert.match(text(unknown), /^not_found: no tool named no_such_tool: the provider has bash/);
  });

  it("cancels the Invoke when the client cancels the request (the command's process ends), and serves the next call", async () => {
    const stop = new AbortController();
    let sawRunning = false;
    // Cancelled once the command's sleep is seen running, so its end is the cancellation's doing.
    const cancelWhenRunning = async () => {
      sawRunning = await processState("sleep 37.25", true, 10_000);
      stop.abort("the test cancels");
    };
    const call = client.callTool(
      { name: "bash", arguments: { command: "echo started; exec sleep 37.25" } },
      undefined,
      { signal: stop.signal, onprogress: () => void cancelWhenRunning() },
    );
    await assert.rejects(call, /cancels/);
    assert.equal(sawRunning, true, "the sleep never ran");
    assert.equal(await processState("sleep 37.25", false, 10_000), true, "the cancelled call's sleep still runs");
    const next = (await client.callTool({ name: "bash", arguments: { command: "echo again" } })) as CallToolResult;
    assert.deepEqual(next.structuredContent, { exit_code: 0 });
  });
});

it("ends a call at --call-timeout with a timeout error result", async () => {
  const config = configFile("exec-timeout.json", { allowed_roots: [dir] });
  const { client } = await serve(["examples/exec", "--config", config, "--cwd", dir, "--call-timeout", "1s"]);
  const started = Date.now();
  const result = (await client.callTool({ name: "bash", arguments: { command: "sleep 20" } })) as CallToolResult;
  assert.equal(result.isError, true);
  assert.match(text(result), /^timeout: bash did not finish within 1000 ms; it was cancelled/);
  assert.ok(Date.now() - started < 10_000);
});

describe("the plan/apply gate over elicitation (--confirm resources)", async () => {
  const config = configFile("fs.json", { allowed_roots: [dir] });
  const asked: string[] = [];
  let answer: ElicitResult["action"] | "fail" = "accept";
  const { client } = await serve(["examples/filesystem", "--config", config, "--cwd", dir, "--confirm", "resources"], {
    capabilities: { elicitation: {} },
    elicit: (message) => {
      asked.push(message);
      if (answer === "fail") throw new Error("the form broke");
      return { action: answer };
    },
  });

  it("lists read_file read-only and write_file as a destructive, moderate resource", async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    assert.equal(byName["read_file"]?.readOnlyHint, true);
    assert.equal(byName["write_file"]?.destructiveHint, true);
  });

  it("applies a write once the person accepts its Preview", async () => {
    answer = "accept";
    const result = (await client.callTool({
      name: "write_file",
      arguments: { path: "accepted.txt", content: "hello over mcp" },
    })) as CallToolResult;
    assert.equal(result.isError, undefined, text(result));
    assert.equal(readFileSync(path.join(dir, "accepted.txt"), "utf8"), "hello over mcp");
    assert.match(asked.at(-1) ?? "", /^Apply write_file\?\n\n[\s\S]*hello over mcp/);
  });

  it("does not apply it when the person declines, and says so with permission_denied", async () => {
    answer = "decline";
    const result = (await client.callTool({
      name: "write_file",
      arguments: { path: "declined.txt", content: "never" },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(text(result), /^permission_denied: write_file was not applied: the person chose decline/);
    assert.equal(existsSync(path.join(dir, "declined.txt")), false);
  });

  it("answers with an error result, not a protocol error, when the elicitation fails", async () => {
    answer = "fail";
    const result = (await client.callTool({
      name: "write_file",
      arguments: { path: "failed.txt", content: "never" },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match(text(result), /^unknown: .*the form broke/);
    assert.equal(existsSync(path.join(dir, "failed.txt")), false);
  });

  it("asks nothing for a data_source", async () => {
    const before = asked.length;
    const result = (await client.callTool({
      name: "read_file",
      arguments: { path: "accepted.txt" },
    })) as CallToolResult;
    assert.equal(result.isError, undefined, text(result));
    assert.equal(asked.length, before);
  });
});

it("refuses a gated call with an error result when the client cannot elicit", async () => {
  const config = configFile("fs-plain.json", { allowed_roots: [dir] });
  const { client } = await serve(["examples/filesystem", "--config", config, "--cwd", dir, "--confirm", "resources"]);
  const result = (await client.callTool({
    name: "write_file",
    arguments: { path: "unconfirmed.txt", content: "no" },
  })) as CallToolResult;
  assert.equal(result.isError, true);
  assert.match(
    text(result),
    /^permission_denied: write_file changes things and needs the person's confirmation, but this MCP client does not support elicitation/,
  );
  assert.equal(existsSync(path.join(dir, "unconfirmed.txt")), false);
});

it("asks an interactive tool's question through elicitation: the answer is the result", async () => {
  const asked: string[] = [];
  const { client } = await serve(["examples/user"], {
    capabilities: { elicitation: {} },
    elicit: (message) => {
      asked.push(message);
      return { action: "accept", content: { answer: "blue" } };
    },
  });
  const { tools } = await client.listTools();
  assert.equal(tools[0]?.annotations?.readOnlyHint, true);
  const result = (await client.callTool({
    name: "ask_user",
    arguments: { question: "Which colour?" },
  })) as CallToolResult;
  assert.deepEqual(result.structuredContent, { answer: "blue" });
  assert.match(asked[0] ?? "", /Which colour\?/);
});

it("reads a sensitive attribute only from the environment", async () => {
  const literal = configFile("web-literal.json", { api_key: "s3cret" });
  const refused = await runServe(["examples/web", "--config", literal], "");
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /harness-tool mcp serve: api_key is sensitive: it comes only from the environment/);
  assert.doesNotMatch(refused.stderr + refused.stdout, /s3cret/);
  const fromEnv = configFile("web-env.json", { api_key: { env: "MCP_TEST_WEB_KEY" }, endpoint: "http://127.0.0.1:9" });
  const { client } = await serve(["examples/web", "--config", fromEnv], { env: { MCP_TEST_WEB_KEY: "s3cret" } });
  assert.deepEqual(
    (await client.listTools()).tools.map((t) => t.name),
    ["web_search", "web_fetch"],
  );
});

/** Runs `harness-tool mcp serve <args>` with `input` on stdin (then closed); its exit code and output. */
function runServe(
  args: readonly string[],
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, "mcp", "serve", ...args], { cwd: repoRoot, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(input);
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
}

it("gives up on a provider that never finishes Configure at --timeout, killing it (exit 1)", async () => {
  const started = Date.now();
  // The kernel's environment reaches the provider, not this one's: the script sets HANG itself.
  const provider = writeProviderScript(dir, "hang-configure", "test/cli/fixtures/hanging-provider.ts", {
    HANG: "configure",
  });
  const hung = await runServe([provider, "--timeout", "10s"], "");
  assert.equal(hung.code, 1, hung.stderr);
  assert.match(hung.stderr, /^harness-tool mcp serve: Configure did not end within 10s: killed the provider/m);
  assert.equal(hung.stdout, "");
  assert.ok(Date.now() - started < 30_000);
});

it("serves a provider written in Go on go-plugin v1.8.0 (bench/go/provider) the same way", async (t) => {
  const go = buildBenchGo();
  if ("skip" in go) {
    // A Go toolchain is mandatory where the interop tests are (.ci/run).
    if (process.env["HARNESS_TOOL_REQUIRE_INTEROP"] === "1") assert.fail(go.skip);
    t.skip(go.skip);
    return;
  }
  const { client } = await serve([go.provider]);
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint]),
    [
      ["echo", true, undefined],
      ["bash", false, true],
    ],
  );
  const echoed = (await client.callTool({ name: "echo", arguments: { text: "from go" } })) as CallToolResult;
  assert.deepEqual(echoed.structuredContent, { text: "from go" });
  const progress: Progress[] = [];
  const streamed = (await client.callTool(
    { name: "bash", arguments: { command: "echo streamed from go" } },
    undefined,
    {
      onprogress: (p) => progress.push(p),
    },
  )) as CallToolResult;
  assert.equal(streamed.isError, undefined, text(streamed));
  assert.ok(
    progress.some((p) => p.message?.includes("streamed from go")),
    JSON.stringify(progress),
  );
});

/** What a raw stdio session with `harness-tool mcp serve` saw. */
interface RawSession {
  readonly code: number | null;
  /** Every stdout line, parsed (each must be JSON). */
  readonly messages: { jsonrpc: string; id?: number; result?: Record<string, unknown> }[];
  readonly stderr: string;
}

const initialize = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
];

/**
 * Speaks JSON-RPC to `harness-tool mcp serve <args>` over its stdin and stdout: initializes, then
 * sends each request once the one before it was answered; closes stdin after the last answer when
 * `closeStdin`, else waits for the command to end by itself.
 */
function rawSession(args: readonly string[], requests: readonly object[], closeStdin: boolean): Promise<RawSession> {
  const child = spawn(process.execPath, [bin, "mcp", "serve", ...args], { cwd: repoRoot, stdio: "pipe" });
  const pending = [...initialize, ...requests];
  const messages: RawSession["messages"] = [];
  let stdout = "";
  let stderr = "";
  const sendNext = () => {
    let next = pending.shift();
    while (next !== undefined) {
      child.stdin.write(`${JSON.stringify(next)}\n`);
      if ("id" in next) return;
      next = pending.shift();
    }
    if (closeStdin) child.stdin.end();
  };
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
    const lines = stdout.split("\n");
    stdout = lines.pop() ?? "";
    for (const line of lines) {
      const message = JSON.parse(line) as RawSession["messages"][number];
      messages.push(message);
      if (message.id !== undefined) sendNext();
    }
  });
  sendNext();
  const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(killer);
      resolve({ code, messages, stderr: stderr + stdout });
    }),
  );
}

const callRequest = (id: number, name: string, args: object) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

it("writes nothing but JSON-RPC on stdout and exits 0 when the client closes stdin", async () => {
  const session = await rawSession(
    ["examples/task"],
    [{ jsonrpc: "2.0", id: 2, method: "tools/list" }, callRequest(3, "task_create", { title: "from raw stdio" })],
    true,
  );
  assert.equal(session.code, 0, session.stderr);
  for (const message of session.messages) assert.equal(message.jsonrpc, "2.0");
  assert.deepEqual(
    session.messages.map((m) => m.id),
    [1, 2, 3],
  );
  assert.deepEqual(session.messages[2]?.result?.["structuredContent"], {
    task: { id: "t1", title: "from raw stdio", status: "pending" },
  });
});

it("answers a call whose provider crashes with process_crashed, then ends with exit 1", async () => {
  const config = configFile("logging.json", { region: "eu" });
  const session = await rawSession(
    ["test/cli/fixtures/logging-provider.ts", "--config", config],
    [callRequest(2, "greet", { name: "Ada" }), callRequest(3, "quit", {})],
    false,
  );
  assert.equal(session.code, 1, session.stderr);
  assert.deepEqual(session.messages[1]?.result?.["structuredContent"], { greeting: "hello Ada in eu" });
  const crashed = session.messages[2]?.result as { isError: boolean; content: { text: string }[] };
  assert.equal(crashed.isError, true);
  assert.match(crashed.content[0]?.text ?? "", /^process_crashed: the provider exited during the call: exit code 3/);
  // The provider's stderr on stderr, but its debug lines, as invoke shows it by default.
  assert.match(session.stderr, /about to greet Ada/);
  assert.doesNotMatch(session.stderr, /a debug line/);
  assert.match(session.stderr, /harness-tool mcp serve: the provider exited: exit code 3/);
});

it("relays the handler's ctx.log lines as logging notifications", async () => {
  const { client, logs } = await serve(["test/cli/fixtures/render-provider.ts"]);
  const result = (await client.callTool({ name: "report", arguments: { title: "quarterly" } })) as CallToolResult;
  assert.equal(result.isError, undefined, text(result));
  const logged = () => logs.find((l) => JSON.stringify(l.data).includes("building the report"));
  for (const started = Date.now(); !logged() && Date.now() - started < 5000; )
    await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(logged()?.data, { message: "building the report", title: "quarterly" });
});

describe("the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli 1.0.3) against a served example", () => {
  // Its entry reads its own package.json relative to the working directory, so it runs from its build folder.
  const inspectorDir = path.join(repoRoot, "node_modules/@modelcontextprotocol/inspector-cli/build");
  const inspector = (args: readonly string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ["index.js", process.execPath, bin, "mcp", "serve", path.join(repoRoot, "examples/task"), ...args],
        { cwd: inspectorDir, stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (c: Buffer) => (out += c.toString()));
      child.stderr.on("data", (c: Buffer) => (err += c.toString()));
      const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("close", (code) => {
        clearTimeout(killer);
        resolve({ code, out, err });
      });
    });

  it("lists the tools, calls one (its client checks structuredContent against outputSchema), sets the log level", async () => {
    const listed = await inspector(["--method", "tools/list"]);
    assert.equal(listed.code, 0, listed.err);
    const tools = (JSON.parse(listed.out) as { tools: { name: string; annotations: object }[] }).tools;
    assert.deepEqual(
      tools.map((t) => t.name),
      ["task_create", "task_update", "task_list"],
    );
    assert.deepEqual(tools[0]?.annotations, {
      title: "Task create",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    const called = await inspector([
      "--method",
      "tools/call",
      "--tool-name",
      "task_create",
      "--tool-arg",
      "title=inspected",
    ]);
    assert.equal(called.code, 0, called.err);
    assert.deepEqual((JSON.parse(called.out) as { structuredContent: object }).structuredContent, {
      task: { id: "t1", title: "inspected", status: "pending" },
    });
    const level = await inspector(["--method", "logging/setLevel", "--log-level", "debug"]);
    assert.equal(level.code, 0, level.err);
  });
});

describe("the MCP project's conformance suite (@modelcontextprotocol/conformance 0.1.16), its scenarios that fit any server", () => {
  // The suite connects by URL only: a streamable HTTP bridge (test/cli/support/mcp-http-bridge.ts)
  // passes its messages unchanged to a `harness-tool mcp serve` per session. The other server
  // scenarios call the tools, prompts and resources of the MCP project's reference server by name.
  const scenarios = ["server-initialize", "ping", "tools-list", "logging-set-level"];
  const suite = path.join(repoRoot, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

  it(`passes ${scenarios.join(", ")} against the task example`, async () => {
    const bridge = await startMcpHttpBridge(process.execPath, [bin, "mcp", "serve", "examples/task"], repoRoot);
    try {
      for (const scenario of scenarios) {
        const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
          execFile(
            process.execPath,
            [suite, "server", "--url", bridge.url, "--scenario", scenario],
            { encoding: "utf8", timeout: 60_000 },
            (error, stdout, stderr) =>
              resolve({ code: error ? ((error.code as number | undefined) ?? 1) : 0, out: stdout + stderr }),
          );
        });
        assert.equal(run.code, 0, run.out);
        assert.match(run.out, /Passed: 1\/1, 0 failed/, run.out);
      }
    } finally {
      await bridge.close();
    }
  });
});
