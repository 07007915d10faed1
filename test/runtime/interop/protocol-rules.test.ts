/**
 * Protocol rules the runtime enforces at run time, read where the kernel reads them: through the
 * real go-plugin v1.8.0 host (the kernel's client configuration) and harness-tool/testing's host.
 * A streaming tool that runs no process streams output chunks; an `unknown` ToolError carries the
 * raw error in details, so `check`'s stream rule passes it; Preview and Render report
 * concurrency_conflict as ABORTED, never UNAVAILABLE (the kernel's code for a crashed process);
 * Emit and RunSession requests are checked before the kernel sees them; and a cancelled call's
 * report (ctx.reportCancelled, examples/exec) reaches the kernel's Log with the call's id.
 */
import assert from "node:assert/strict";
import { after, before, describe } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { StatusSchema } from "harness-tool/generated/google/rpc/status_pb.js";
import { ToolResultEventSchema } from "harness-tool/generated/pluggableharness/event/v1/event_pb.js";
import { EventKind } from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import {
  PreviewRequestSchema,
  RenderRequestSchema,
  ToolErrorCategory,
  type ToolSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { checkInvokeStream } from "../../../cli/check/stream-shape.js";
import { GrpcCode } from "../../../runtime/errors/rpc-status-error.js";
import { toolErrorFromStatus } from "../../../runtime/errors/rpc-status-details.js";
import { b64, type GoHost } from "./go-host.js";
import { scenario, skipFor, start, type Harness, type HostId } from "./host-matrix.js";
import { eventually } from "./process-state.js";
import { exampleProviders, typeScriptProvider } from "./providers.js";
import type { ScenarioHost } from "./scenario-host.js";
import { callContext, terminal } from "./scenarios.js";

const rulesProvider = typeScriptProvider("protocol-rules", "test/runtime/interop/fixtures/protocol-rules-provider.ts");
const execExample = exampleProviders().find((p) => p.name === "examples/exec");
const hosts: readonly HostId[] = ["typescript", "go"];
const unb64 = (text: unknown) => new Uint8Array(Buffer.from(String(text), "base64"));

/** A unary call through the Go host: the status code and the ToolError grpc-go decoded from the details. */
async function goUnary(go: GoHost, method: string, request: Uint8Array) {
  const result = await go.request({
    op: "unary",
    method: `/pluggableharness.tool.v1.ToolService/${method}`,
    request: b64(request),
  });
  const toolError = result.status ? toolErrorFromStatus(fromBinary(StatusSchema, unb64(result.status))) : undefined;
  return { code: Number(result.code), toolError };
}

for (const id of hosts) {
  describe(`${id} host × protocol rules`, { skip: skipFor(id) }, () => {
    let h: Harness;
    let host: ScenarioHost;
    let tools: readonly ToolSchema[] = [];
    before(async () => {
      h = await start(id, rulesProvider);
      host = h.host;
      tools = (await host.getSchema()).tools;
    });
    after(() => h?.close());
    const tool = (name: string) => tools.find((t) => t.name === name) as ToolSchema;

    scenario(id, "a streaming tool that runs no process streams its output chunks, then its result", async () => {
      const outcome = await host.invoke({
        id: "export-1",
        toolName: "export_rows",
        arguments: { rows: 3 },
        callContext: callContext("s-export"),
      });
      assert.deepEqual(
        outcome.events.map((e) => e.event.case),
        ["outputChunk", "outputChunk", "outputChunk", "result"],
      );
      const text = outcome.events
        .flatMap((e) => (e.event.case === "outputChunk" ? [Buffer.from(e.event.value.data).toString()] : []))
        .join("");
      assert.equal(text, "row 1\nrow 2\nrow 3\n");
      assert.deepEqual(checkInvokeStream(tool("export_rows"), outcome.events, { cancelled: false }), []);
    });

    scenario(
      id,
      "an unknown ToolError without details arrives with the raw error in details; check agrees",
      async () => {
        const outcome = await host.invoke({
          id: "corrupt-1",
          toolName: "corrupt",
          arguments: { page: 7 },
          callContext: callContext("s-corrupt"),
        });
        const [event] = terminal(outcome.events);
        assert.equal(event?.event.case, "error");
        const error = event?.event.case === "error" ? event.event.value : undefined;
        assert.equal(error?.category, ToolErrorCategory.UNKNOWN);
        assert.deepEqual(error?.details, { error: { name: "ToolError", message: "page 7 of the index is corrupt" } });
        assert.deepEqual(checkInvokeStream(tool("corrupt"), outcome.events, { cancelled: false }), []);
      },
    );

    scenario(
      id,
      "Emit of UNSPECIFIED, HOOK_ERROR or no schema_version and RunSession under another session never reach the kernel",
      async () => {
        const outcome = await host.invoke({
          id: "callbacks-1",
          toolName: "callbacks",
          arguments: { topic: "audit" },
          callContext: callContext("s-callbacks"),
        });
        const [result] = terminal(outcome.events);
        const refusals = result?.event.case === "result" ? (result.event.value.payload?.["refusals"] as string[]) : [];
        assert.equal(refusals.length, 4, JSON.stringify(outcome.events));
        for (const text of refusals) assert.match(text, /refused before it reached the kernel/);
        const calls = await host.callbackCalls();
        const emits = calls.emit.filter((e) => e.sessionId === "s-callbacks");
        assert.deepEqual(
          emits.map((e) => [e.kind, e.schemaVersion]),
          [[EventKind.TOOL_RESULT, "1"]],
          "only emitEvent's event.v1 message reached the kernel",
        );
        const decoded = fromBinary(ToolResultEventSchema, emits[0]?.payload ?? new Uint8Array());
        assert.equal(decoded.toolCallId, "callbacks-1");
        const sessions = calls.runSession.filter((r) => r.prompt === "look into audit");
        assert.deepEqual(
          sessions.map((r) => r.parentSessionId),
          ["s-callbacks"],
          "RunSession's parent is the call's session",
        );
        assert.ok(!calls.runSession.some((r) => r.parentSessionId === "another"));
      },
    );

    if (id === "go") {
      scenario(
        id,
        "Preview and Render report concurrency_conflict as ABORTED, not UNAVAILABLE (process_crashed)",
        async () => {
          const go = h.go as GoHost;
          const call = {
            id: "edit-1",
            toolName: "edit",
            arguments: { path: "/tmp/a" },
            callContext: callContext("s-edit"),
          };
          const preview = await goUnary(
            go,
            "Preview",
            toBinary(PreviewRequestSchema, create(PreviewRequestSchema, { call })),
          );
          assert.equal(preview.code, GrpcCode.ABORTED);
          assert.equal(preview.toolError?.category, ToolErrorCategory.CONCURRENCY_CONFLICT);
          assert.equal(preview.toolError?.retryable, true);
          const render = await goUnary(
            go,
            "Render",
            toBinary(
              RenderRequestSchema,
              create(RenderRequestSchema, { payload: new Uint8Array(), schemaVersion: "1" }),
            ),
          );
          assert.equal(render.code, GrpcCode.ABORTED);
          assert.equal(render.toolError?.category, ToolErrorCategory.CONCURRENCY_CONFLICT);
          assert.notEqual(render.code, GrpcCode.UNAVAILABLE);
        },
      );
    }
  });

  describe(`${id} host × examples/exec cancelled`, { skip: execExample ? skipFor(id) : "no examples/exec" }, () => {
    let h: Harness;
    before(async () => {
      h = await start(id, execExample!);
      assert.equal((await h.host.configure({ allowed_roots: ["/tmp"] })).code, 0);
    });
    after(() => h?.close());

    scenario(
      id,
      "the cancel report reaches the kernel's Log with the call's session and call id; the stream ends without a terminal",
      async () => {
        const outcome = await h.host.invoke(
          {
            id: "bash-report",
            toolName: "bash",
            arguments: { command: "echo started; sleep 30" },
            callContext: callContext("s-report"),
          },
          { cancelAfter: 1 },
        );
        assert.equal(outcome.cancelled, true);
        assert.equal(terminal(outcome.events).length, 0);
        const report = async () =>
          (await h.host.callbackCalls()).log.find((l) => l.entry?.fields?.["call_id"] === "bash-report");
        assert.ok(await eventually(async () => (await report()) !== undefined, 5000), "the report arrived");
        const log = await report();
        assert.equal(log?.sessionId, "s-report");
        assert.match(log?.entry?.message ?? "", /bash was stopped; the command was ended by SIGTERM/);
        assert.deepEqual(log?.entry?.fields, {
          cancel_report: true,
          call_id: "bash-report",
          tool: "bash",
          turn_id: "turn-1",
          stopped_by: "cancelled",
          details: { command: "echo started; sleep 30", exit_code: -1, signal: "SIGTERM" },
        });
      },
    );
  });
}
