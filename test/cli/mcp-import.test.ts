// `harness-tool mcp import` against a server written for the test (test/cli/fixtures/mcp-servers):
// what the import writes and leaves out, and the generated provider launched through the go-plugin
// host: structuredContent, roots, progress, isError, a result violating the server's own output
// schema, cancellation (the deadline's and the kernel's), a crash (reported, then restarted), secrets,
// no orphan after Kill or after the provider's SIGKILL (the supervisor's watchdog: the server keeps
// running when its stdin closes), and drift refused at Configure, then followed by a re-import that
// keeps the edited classification.
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { ToolErrorCategory } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { repoRoot } from "../support/buf.js";
import { generate, importServer, launchImported } from "./support/imported-provider.js";

const server = [process.execPath, path.join(repoRoot, "test/cli/fixtures/mcp-servers/test-server.mjs")];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("mcp import: a test server", () => {
  let dir = "";
  let out = "";
  let provider: LaunchedProvider;
  let state = "";
  const records = () =>
    readFileSync(state, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { started?: number; secret?: string; cancelled?: unknown });
  const invoke = (toolName: string, args: Record<string, unknown> = {}) =>
    provider.invoke({
      id: `${toolName}-${Math.random()}`,
      toolName,
      arguments: args as never,
      callContext: { workingDirectory: dir },
    });

  before(async () => {
    process.env["MCP_TEST_SECRET"] = "seen-by-the-import";
    const imported = await importServer(["--secret", "MCP_TEST_SECRET"], server).finally(() => {
      delete process.env["MCP_TEST_SECRET"];
    });
    dir = imported.dir;
    out = imported.run.out;
    // The author edits hang's classification: a short deadline, kept by re-imports.
    const proto = path.join(dir, "proto/provider/v1/provider.proto");
    const text = readFileSync(proto, "utf8");
    const hang = text.indexOf('name: "hang"');
    const edited =
      text.slice(0, hang) + text.slice(hang).replace("default_timeout: {seconds: 60}", "default_timeout: {seconds: 3}");
    writeFileSync(proto, edited);
    generate(dir);
    state = path.join(dir, "server-state.jsonl");
    provider = await launchImported(dir, { MCP_TEST_STATE: state, MCP_TEST_SECRET: "from-the-environment" });
    await provider.configure({});
  });
  after(async () => {
    await provider?.kill();
    if (dir) rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it("imports every tool the subset expresses, and reports the one it leaves out", () => {
    assert.match(out, /imported 6 tools into .*: bad_output, count, crash, echo, fail, hang\n/);
    assert.match(out, /left out union: input \/properties\/v: `anyOf` has no form in the subset/);
    const proto = readFileSync(path.join(dir, "proto/provider/v1/provider.proto"), "utf8");
    assert.match(proto, /kind: TOOL_KIND_RESOURCE\n {6}risk: RISK_CLASS_HIGH/);
    assert.match(proto, /readOnlyHint=true, idempotentHint=true/);
    assert.doesNotMatch(proto, /name: "union"/);
  });

  it("writes none of init's docs: npm run docs, which the next steps name, writes the imported tools' pages", () => {
    assert.equal(existsSync(path.join(dir, "docs")), false);
    assert.match(out, /^ {2}npm run generate && npm run build && npm run docs && npm test$/m);
    assert.match(readFileSync(path.join(dir, "README.md"), "utf8"), /npm run build && npm run docs\n```/);
  });

  it("serves the imported surface: resource/high, the integer and its bounds said in the description", async () => {
    const schema = await provider.getSchema();
    assert.deepEqual(schema.tools.map((t) => t.name).sort(), ["bad_output", "count", "crash", "echo", "fail", "hang"]);
    const count = schema.tools.find((t) => t.name === "count");
    assert.equal(count?.kind, 1);
    assert.equal(count?.risk, 4);
    assert.match(JSON.stringify(count?.inputSchema), /an integer; default: 3; minimum: 1/);
  });

  it("returns structuredContent as the result, with the call's working directory as the roots", async () => {
    const { events } = await invoke("echo", { text: "hi" }).done;
    const last = events.at(-1)?.event;
    assert.equal(last?.case, "result", JSON.stringify(last));
    assert.deepEqual(last?.case === "result" && last.value.payload, { echoed: "hi", roots: [pathToFileURL(dir).href] });
  });

  it("turns MCP progress into progress events and content into the result", async () => {
    const { events } = await invoke("count", { n: 2 }).done;
    const progress = events
      .filter((e) => e.event.case === "progress")
      .map((e) => e.event.case === "progress" && e.event.value.message);
    assert.deepEqual(progress, ["step 1", "step 2"]);
    const last = events.at(-1)?.event;
    assert.deepEqual(last?.case === "result" && last.value.payload, {
      content: [{ type: "text", text: "counted to 2" }],
    });
  });

  it("isError becomes execution_failed with the server's text", async () => {
    const last = (await invoke("fail").done).events.at(-1)?.event;
    assert.equal(last?.case, "error");
    assert.equal(last?.case === "error" && last.value.category, ToolErrorCategory.EXECUTION_FAILED);
    assert.match(last?.case === "error" ? last.value.message : "", /fail: it failed on purpose/);
  });

  it("a result violating the server's own output schema is refused, not passed on", async () => {
    const last = (await invoke("bad_output").done).events.at(-1)?.event;
    assert.equal(last?.case, "error", JSON.stringify(last));
    assert.equal(last?.case === "error" && last.value.category, ToolErrorCategory.EXECUTION_FAILED);
    assert.match(
      last?.case === "error" ? last.value.message : "",
      /does not match its own outputSchema: \/count must be a number/,
    );
  });

  it("a call that hangs past its deadline ends as a timeout and sends MCP's cancellation", async () => {
    const last = (await invoke("hang").done).events.at(-1)?.event;
    assert.equal(last?.case === "error" && last.value.category, ToolErrorCategory.TIMEOUT, JSON.stringify(last));
    for (let i = 0; i < 50 && !records().some((r) => r.cancelled !== undefined); i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.ok(
      records().some((r) => r.cancelled !== undefined),
      "the server got notifications/cancelled",
    );
  });

  it("the kernel's cancellation of a call is MCP's cancellation", async () => {
    const before = records().filter((r) => r.cancelled !== undefined).length;
    const call = invoke("hang");
    await new Promise((r) => setTimeout(r, 500));
    call.cancel();
    await call.done.catch(() => {});
    for (let i = 0; i < 50 && records().filter((r) => r.cancelled !== undefined).length === before; i++)
      await new Promise((r) => setTimeout(r, 100));
    assert.equal(records().filter((r) => r.cancelled !== undefined).length, before + 1);
  });

  it("a crash mid-call is reported as a retryable execution_failed, and the next call restarts the server", async () => {
    const first = records().find((r) => r.started)?.started as number;
    const last = (await invoke("crash").done).events.at(-1)?.event;
    assert.equal(
      last?.case === "error" && last.value.category,
      ToolErrorCategory.EXECUTION_FAILED,
      JSON.stringify(last),
    );
    assert.match(
      last?.case === "error" ? last.value.message : "",
      /the MCP server exited during the call \(exit code 3\)/,
    );
    assert.equal(last?.case === "error" && last.value.retryable, true);
    const again = (await invoke("echo", { text: "back" }).done).events.at(-1)?.event;
    assert.equal(again?.case, "result", JSON.stringify(again));
    const starts = records()
      .filter((r) => r.started)
      .map((r) => r.started);
    assert.equal(starts.length, 2);
    assert.ok(!alive(first));
  });

  it("a secret is a sensitive attribute, else the provider's environment, and never written", async () => {
    const proto = readFileSync(path.join(dir, "proto/provider/v1/provider.proto"), "utf8");
    assert.match(proto, /optional string mcp_test_secret = 3 \[\(harnesstool\.v1\.field\)\.sensitive = true\];/);
    for (const file of ["proto/provider/v1/provider.proto", "mcp/imported.json", "src/main.ts"])
      assert.doesNotMatch(readFileSync(path.join(dir, file), "utf8"), /seen-by-the-import/, file);
    assert.equal(records().find((r) => r.started)?.secret, "from-the-environment");
    // The configuration's command line and secret start the server anew.
    await provider.configure({ command: process.execPath, args: server.slice(1), mcp_test_secret: "from-the-config" });
    assert.equal(
      records()
        .filter((r) => r.started)
        .at(-1)?.secret,
      "from-the-config",
    );
    const again = (await invoke("echo", { text: "configured" }).done).events.at(-1)?.event;
    assert.equal(again?.case, "result", JSON.stringify(again));
  });

  it("leaves no server process behind after Kill", async () => {
    const pids = records()
      .filter((r) => r.started)
      .map((r) => r.started as number);
    await provider.kill();
    for (let i = 0; i < 20 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(pids.filter(alive), []);
  });

  it("a provider killed with SIGKILL takes its server along (the supervisor's watchdog)", async () => {
    const file = path.join(dir, "sigkill-state.jsonl");
    const victim = await launchImported(dir, { MCP_TEST_STATE: file });
    try {
      await victim.configure({});
      const server = JSON.parse(readFileSync(file, "utf8").split("\n")[0] as string) as { started: number };
      // The server's parent is the provider, under the supervisor the host launched.
      const stat = readFileSync(`/proc/${server.started}/stat`, "utf8");
      const providerPid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      process.kill(providerPid, "SIGKILL");
      for (let i = 0; i < 50 && alive(server.started); i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(alive(server.started), false, "the server outlived its provider");
    } finally {
      await victim.kill();
    }
  });

  it("refuses Configure when the server's tools drifted, naming them and the import command", async () => {
    const drifted = await launchImported(dir, { MCP_TEST_VARIANT: "changed" });
    try {
      const refused = await drifted.configure({}).then(
        () => assert.fail("Configure accepted a drifted server"),
        (error: unknown) => error,
      );
      assert.ok(refused instanceof ProviderCallError, String(refused));
      const message = refused.toolError?.message ?? "";
      assert.match(message, /echo: its input schema changed/);
      assert.match(message, /count: readOnlyHint no longer true/);
      assert.match(message, /fail: gone from the server/);
      assert.doesNotMatch(message, /extra/);
      assert.ok(
        drifted.stderr.some((e) => e.raw.includes("mcp import drift (compatible): extra: new on the server")),
        "the compatible change is logged",
      );
      assert.match(message, /run: harness-tool mcp import .* -- /);
    } finally {
      await drifted.kill();
    }
  });

  it("a re-import follows the server, keeps the edited classification and reports the changes as diff does", async () => {
    process.env["MCP_TEST_VARIANT"] = "changed";
    try {
      const { run } = await importServer([], server, dir);
      assert.match(run.out, /re-imported 6 tools/);
      assert.match(run.out, /tool-removed\s+fail/);
      assert.match(run.out, /tool-added\s+extra/);
      assert.match(run.out, /input-required-added\s+echo/);
      assert.match(run.out, /^Next: npm run generate && npm run build && npm run docs$/m);
    } finally {
      delete process.env["MCP_TEST_VARIANT"];
    }
    const proto = readFileSync(path.join(dir, "proto/provider/v1/provider.proto"), "utf8");
    const hang = proto.slice(proto.indexOf('name: "hang"'));
    assert.match(hang.slice(0, hang.indexOf("(end of the classification)")), /default_timeout: \{seconds: 3\}/);
    assert.ok(existsSync(path.join(dir, "mcp/imported.json")));
    generate(dir, false);
    const followed = await launchImported(dir, { MCP_TEST_VARIANT: "changed" });
    try {
      await followed.configure({});
    } finally {
      await followed.kill();
    }
  });
});
