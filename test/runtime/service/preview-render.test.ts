// Preview is side-effect-free by construction and UNIMPLEMENTED when not declared; Render
// dispatches on schema_version.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import {
  PreviewRequestSchema,
  RenderRequestSchema,
  ToolErrorCategory,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { GrpcCode, RpcStatusError } from "../../../runtime/errors/rpc-status-error.js";
import { defineProvider, defineTool, ToolError, type PreviewContext } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { echo, providerWith, textSchema } from "./support/sample-tools.js";
import { invokeRequest } from "./support/recording-sink.js";

const edit = defineTool<{ text: string }, { text: string }>()({
  name: "edit",
  kind: "resource",
  risk: "moderate",
  description: "Edits.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: false,
  preview: true,
  defaultTimeoutMs: 30,
});

function previewRequest(tool: string, args: Record<string, string | number> = { text: "a" }) {
  return create(PreviewRequestSchema, { call: invokeRequest(tool, args).call! });
}

async function status(promise: Promise<unknown>): Promise<RpcStatusError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcStatusError, String(error));
    return error;
  }
  assert.fail("expected a status");
}

describe("Preview", () => {
  let seen: PreviewContext<unknown> | undefined;
  const provider = defineProvider(
    { name: "p", version: "1", source: "github.com/acme/s", tools: { edit, echo } },
    { edit: async (i) => i, echo: async (i) => i },
    {
      edit: async (input, ctx) => {
        seen = ctx;
        if (input.text === "throw") throw new ToolError("permission_denied", "not there");
        if (input.text === "busy") throw new ToolError("concurrency_conflict", "edit in progress", { retryable: true });
        if (input.text === "hang") return new Promise(() => {});
        if (input.text === "crash") throw new Error("preview bug");
        return { root: { node: { case: "text", value: { content: `would write ${input.text}` } } } };
      },
    },
  );
  const previewLog: string[] = [];
  const service = createToolService(provider, { stderr: (line) => previewLog.push(line) });

  it("returns the handler's RenderTree", async () => {
    const response = await service.preview(previewRequest("edit"));
    const node = response.preview?.root?.node;
    assert.equal(node?.case === "text" && node.value.content, "would write a");
  });

  it("gives the handler no way to emit, call the kernel or spawn", async () => {
    await service.preview(previewRequest("edit"));
    assert.deepEqual(Object.keys(seen!).sort(), ["call", "config", "resolvePath", "signal"]);
    assert.ok(Object.isFrozen(seen));
  });

  it("is UNIMPLEMENTED for a tool that did not declare it, NOT_FOUND for an unknown tool", async () => {
    assert.equal((await status(service.preview(previewRequest("echo")))).code, GrpcCode.UNIMPLEMENTED);
    assert.equal((await status(service.preview(previewRequest("nope")))).code, GrpcCode.NOT_FOUND);
  });

  it("is INVALID_ARGUMENT with the failing paths for bad arguments", async () => {
    const error = await status(service.preview(previewRequest("edit", { text: 5 })));
    assert.equal(error.code, GrpcCode.INVALID_ARGUMENT);
    assert.equal(error.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
    assert.deepEqual(error.toolError?.details, {
      violations: [{ path: "/text", message: "must be a string, not a number" }],
    });
  });

  it("keeps a thrown ToolError's category in the status details, and times out with DEADLINE_EXCEEDED", async () => {
    const thrown = await status(service.preview(previewRequest("edit", { text: "throw" })));
    assert.equal(thrown.toolError?.category, ToolErrorCategory.PERMISSION_DENIED);
    assert.equal(thrown.code, GrpcCode.PERMISSION_DENIED);
    const hung = await status(service.preview(previewRequest("edit", { text: "hang" })));
    assert.equal(hung.code, GrpcCode.DEADLINE_EXCEEDED);
  });

  it("concurrency_conflict is ABORTED, never UNAVAILABLE (the kernel's code for a crashed process)", async () => {
    const busy = await status(service.preview(previewRequest("edit", { text: "busy" })));
    assert.equal(busy.code, GrpcCode.ABORTED);
    assert.equal(busy.toolError?.category, ToolErrorCategory.CONCURRENCY_CONFLICT);
    assert.equal(busy.toolError?.retryable, true);
  });

  it("anything else thrown is INTERNAL, unknown without a stack; the stack goes to the log with the tool", async () => {
    const crashed = await status(service.preview(previewRequest("edit", { text: "crash" })));
    assert.equal(crashed.code, GrpcCode.INTERNAL);
    assert.deepEqual(crashed.toolError?.details, { error: { name: "Error", message: "preview bug" } });
    const line = previewLog
      .map((l) => JSON.parse(l) as { tool?: string; stack?: string })
      .find((l) => l.stack !== undefined);
    assert.equal(line?.tool, "edit");
    assert.match(line?.stack ?? "", /^Error: preview bug\n\s+at /);
  });
});

describe("Render", () => {
  const provider = providerWith(echo, async (i) => i, {
    renderers: {
      v1: async (payload: Uint8Array) => ({
        root: { node: { case: "text", value: { content: `v1: ${Buffer.from(payload).toString()}` } } },
      }),
      v2: async () => ({ root: { node: { case: "codeBlock", value: { content: "v2" } } } }),
      broken: async () => {
        throw new Error("renderer bug");
      },
    },
  });
  const logged: string[] = [];
  const service = createToolService(provider, { stderr: (line) => logged.push(line) });
  const render = (schemaVersion: string) =>
    service.render(create(RenderRequestSchema, { schemaVersion, payload: Buffer.from("data") }));

  it("dispatches on schema_version", async () => {
    const v1 = (await render("v1")).tree?.root?.node;
    assert.equal(v1?.case === "text" && v1.value.content, "v1: data");
    assert.equal((await render("v2")).tree?.root?.node.case, "codeBlock");
  });

  it("is UNIMPLEMENTED for an unknown schema_version, and for a provider without renderers", async () => {
    const error = await status(render("v9"));
    assert.equal(error.code, GrpcCode.UNIMPLEMENTED);
    assert.match(error.message, /no renderer for schema_version "v9"/);
    const none = createToolService(
      providerWith(echo, async (i) => i),
      { stderr: () => {} },
    );
    assert.equal(
      (await status(none.render(create(RenderRequestSchema, { schemaVersion: "v1" })))).code,
      GrpcCode.UNIMPLEMENTED,
    );
  });

  it("a renderer that throws is INTERNAL with an unknown ToolError, never gRPC UNKNOWN; its stack goes to the log, not the status", async () => {
    const error = await status(render("broken"));
    assert.equal(error.code, GrpcCode.INTERNAL);
    assert.equal(error.toolError?.category, ToolErrorCategory.UNKNOWN);
    assert.deepEqual(error.toolError?.details, { error: { name: "Error", message: "renderer bug" } });
    const line = logged
      .map((l) => JSON.parse(l) as { "@level": string; stack?: string })
      .find((l) => l.stack !== undefined);
    assert.equal(line?.["@level"], "error");
    assert.match(line?.stack ?? "", /^Error: renderer bug\n\s+at /);
  });
});

describe("Preview with a default timeout past setTimeout's limit", () => {
  it("a 40-day default timeout lets a Preview finish (it does not time out at once)", async () => {
    const slow = defineTool<{ text: string }, { text: string }>()({
      name: "slow_edit",
      kind: "resource",
      risk: "moderate",
      description: "Edits slowly.",
      inputSchema: textSchema,
      outputSchema: textSchema,
      concurrency: { safe: true },
      idempotent: false,
      preview: true,
      defaultTimeoutMs: 40 * 24 * 3600 * 1000,
    });
    const provider = defineProvider(
      { name: "p", version: "1", source: "github.com/acme/s", tools: { slow } },
      { slow: async (i) => i },
      {
        slow: async (input) => {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return { root: { node: { case: "text", value: { content: `would write ${input.text}` } } } };
        },
      },
    );
    const service = createToolService(provider, { stderr: () => {} });
    const response = await service.preview(previewRequest("slow_edit"));
    const node = response.preview?.root?.node;
    assert.equal(node?.case === "text" && node.value.content, "would write a");
  });
});
