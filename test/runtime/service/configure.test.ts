// Configure decodes the config and rejects a missing required field or a wrong type at once, as
// INVALID_ARGUMENT with a ToolError; Invoke before Configure and Configure twice are defined.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { ConfigureRequestSchema, ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { GrpcCode, RpcStatusError } from "../../../runtime/errors/rpc-status-error.js";
import { defineConfig } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { echo, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink } from "./support/recording-sink.js";

const config = defineConfig<{ root: string; depth?: number; api_key?: string }>([
  { name: "root", type: "string", required: true },
  { name: "depth", type: "number", defaultJson: "3" },
  { name: "api_key", type: "string", sensitive: true },
]);

function service() {
  return createToolService(
    providerWith(echo, async (_input, ctx) => ({ text: JSON.stringify(ctx.config) }), { config }),
    { stderr: () => {} },
  );
}

function configure(s: ReturnType<typeof service>, value: JsonObject) {
  return s.configure(create(ConfigureRequestSchema, { config: value }));
}

async function rejection(promise: Promise<unknown>): Promise<RpcStatusError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcStatusError, `expected an RpcStatusError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected a rejection");
}

describe("Configure", () => {
  it("rejects a missing required field as INVALID_ARGUMENT with an invalid_arguments ToolError naming the path", async () => {
    const error = await rejection(configure(service(), { depth: 2 }));
    assert.equal(error.code, GrpcCode.INVALID_ARGUMENT);
    assert.equal(error.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
    assert.deepEqual(error.toolError?.details, { violations: [{ path: "/root", message: "is required" }] });
    assert.match(error.message, /\/root is required/);
  });

  it("rejects a wrong type and an unknown attribute", async () => {
    const error = await rejection(configure(service(), { root: 7, colour: "red" }));
    assert.equal(error.code, GrpcCode.INVALID_ARGUMENT);
    const paths = (error.toolError?.details?.["violations"] as { path: string }[] | undefined)?.map((v) => v.path);
    assert.deepEqual(paths, ["/root", "/colour"]);
  });

  it("never echoes a rejected request's secret in the status", async () => {
    const broken = defineConfig<{ api_key: string }>([{ name: "api_key", type: "string", sensitive: true }]);
    const s = createToolService(
      providerWith(echo, async (i) => i, {
        config: {
          attributes: broken.attributes,
          decode: (v) => ({
            ok: false,
            violations: [{ path: "/api_key", message: `bad key ${String(v["api_key"])}` }],
          }),
        },
      }),
      { stderr: () => {} },
    );
    const error = await rejection(configure(s, { api_key: "sk-live-123456" }));
    assert.doesNotMatch(error.message, /sk-live-123456/);
    assert.doesNotMatch(JSON.stringify(error.toolError?.details), /sk-live-123456/);
  });

  it("accepts a valid config, applies defaults, and the handler sees it", async () => {
    const s = service();
    await configure(s, { root: "/srv" });
    const rec = recordingSink();
    await s.invoke(invokeRequest("echo", { text: "x" }), rec.sink);
    const terminal = onlyTerminal(rec);
    assert.equal(terminal.case, "result");
    assert.deepEqual(JSON.parse(String((terminal.value as { payload: JsonObject }).payload["text"])), {
      root: "/srv",
      depth: 3,
    });
  });

  it("a second Configure replaces the config for later calls", async () => {
    const s = service();
    await configure(s, { root: "/one" });
    await configure(s, { root: "/two" });
    const rec = recordingSink();
    await s.invoke(invokeRequest("echo", { text: "x" }), rec.sink);
    const terminal = onlyTerminal(rec);
    assert.match(String((terminal.value as { payload: JsonObject }).payload["text"]), /"root":"\/two"/);
  });

  it("a rejected second Configure keeps the config in force", async () => {
    const s = service();
    await configure(s, { root: "/one" });
    await rejection(configure(s, {}));
    const rec = recordingSink();
    await s.invoke(invokeRequest("echo", { text: "x" }), rec.sink);
    assert.match(String((onlyTerminal(rec).value as { payload: JsonObject }).payload["text"]), /"root":"\/one"/);
  });

  it("reports INTERNAL (never UNKNOWN) when the provider's decoder throws, its stack in the log, not the status", async () => {
    const lines: string[] = [];
    const s = createToolService(
      providerWith(echo, async (i) => i, {
        config: {
          attributes: [],
          decode: () => {
            throw new Error("boom");
          },
        },
      }),
      { stderr: (line) => lines.push(line) },
    );
    const error = await rejection(configure(s, {}));
    assert.equal(error.code, GrpcCode.INTERNAL);
    assert.equal(error.toolError?.category, ToolErrorCategory.UNKNOWN);
    assert.deepEqual(error.toolError?.details, { error: { name: "Error", message: "boom" } });
    const logged = lines.map((l) => JSON.parse(l) as { stack?: string }).find((l) => l.stack !== undefined);
    assert.match(logged?.stack ?? "", /^Error: boom\n\s+at /);
  });

  it("refuses a relative allowed root at Configure", async () => {
    const rooted = defineConfig<{ root: string }>([{ name: "root", type: "string", required: true }]);
    const s = createToolService(
      providerWith(echo, async (i) => i, {
        config: rooted,
        allowedRoots: ((c: { root: string }) => [c.root]) as never,
      }),
      { stderr: () => {} },
    );
    const error = await rejection(configure(s, { root: "relative/dir" }));
    assert.equal(error.code, GrpcCode.INVALID_ARGUMENT);
    assert.match(error.message, /not an absolute path/);
  });
});

describe("Invoke before Configure", () => {
  it("ends with a terminal unknown error when the config has required attributes", async () => {
    const s = service();
    const rec = recordingSink();
    await s.invoke(invokeRequest("echo", { text: "x" }), rec.sink);
    const terminal = onlyTerminal(rec);
    assert.equal(terminal.case, "error");
    assert.equal(terminal.value.category, ToolErrorCategory.UNKNOWN);
    assert.match(terminal.value.message, /before Configure/);
  });

  it("runs with the decoded defaults when the config has no required attributes", async () => {
    const optional = defineConfig<{ depth: number }>([{ name: "depth", type: "number", defaultJson: "5" }]);
    const s = createToolService(
      providerWith(echo, async (_i, ctx) => ({ text: String(ctx.config.depth) }), { config: optional }),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await s.invoke(invokeRequest("echo", { text: "x" }), rec.sink);
    assert.deepEqual(onlyTerminal(rec), { case: "result", value: onlyTerminal(rec).value });
    assert.equal((onlyTerminal(rec).value as { payload: JsonObject }).payload["text"], "5");
  });
});
