// The exit walk through go-plugin: the same provider as test/runtime/service/exit-walk.test.ts, served in
// its own process and driven by the TypeScript go-plugin host, so what is checked is what crosses
// the process boundary: the Invoke stream, unary responses, gRPC statuses with their
// grpc-status-details-bin, the kernel callbacks on the broker, and every stderr line, including
// console output, a raw process.stderr.write and an unhandled rejection, which only the
// transport's stderr exit (runtime/transport/host-log.ts filterStderr) sees.
import assert from "node:assert/strict";
import { it } from "node:test";
import { toBinary } from "@bufbuild/protobuf";
import {
  CountTokensRequestSchema,
  EmitRequestSchema,
  LogRequestSchema,
  RunSessionRequestSchema,
} from "../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import {
  PreviewResponseSchema,
  RenderResponseSchema,
  ToolErrorSchema,
  ToolEventSchema,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { launch, ProviderCallError } from "../../../runtime/testing/index.js";
import { redactionMarker } from "../../../runtime/redaction/index.js";
import { eventually } from "../interop/process-state.js";
import { typeScriptProvider } from "../interop/providers.js";
import { supervisorUnderTest } from "../../support/supervisor-under-test.js";
import {
  carrier,
  exitsShowingMarker,
  failureSent,
  leaks,
  secret,
  wire,
  type Sent,
} from "../../support/exit-walk-provider.js";

/** A unary failure as the host received it: status message and grpc-status-details-bin. */
function providerCallSent(what: string, error: unknown): Sent[] {
  assert.ok(error instanceof ProviderCallError, `${what}: ${String(error)}`);
  return [
    { exit: "unary status", what: `${what}: message`, data: error.details },
    { exit: "grpc-status-details-bin", what, data: error.toolError ? toBinary(ToolErrorSchema, error.toolError) : "" },
  ];
}

const failure = failureSent(providerCallSent);

// Twice: with the supervisor (the default), and without it, where the JavaScript exits alone must
// hold (the supervisor's byte filter would otherwise hide a missing one: docs/runtime.md#exits).
it("through go-plugin, nothing the provider process sends holds the secret in any form", () =>
  walk(supervisorUnderTest()));
it("through go-plugin without the supervisor, the JavaScript exits alone hold", () =>
  walk({ HARNESS_TOOL_SUPERVISOR: "off" }));

async function walk(env: { readonly [name: string]: string }): Promise<void> {
  const command = typeScriptProvider("exit-walk", "test/runtime/transport/fixtures/exit-walk-provider.ts");
  const provider = await launch(command.command, {
    args: command.args,
    cwd: command.cwd,
    env,
    handshakeTimeoutMs: 30_000,
  });
  const sent: Sent[] = [];
  try {
    sent.push(
      ...(await failure("Configure rejected", () => provider.configure({ api_key: secret, [carrier]: carrier }))),
    );
    await provider.configure({ api_key: secret });
    for (const mode of ["result", "tool-error"]) {
      const outcome = await provider.invoke({
        id: mode,
        toolName: "walk",
        arguments: { mode },
        callContext: { sessionId: "s", workingDirectory: "/tmp" },
      }).done;
      for (const event of outcome.events)
        sent.push(wire("Invoke events", `${mode}: ${String(event.event.case)}`, ToolEventSchema, event));
      for (const stream of [1, 2]) {
        const chunks = outcome.events.flatMap((e) =>
          e.event.case === "outputChunk" && e.event.value.stream === stream ? [e.event.value.data] : [],
        );
        sent.push({ exit: "Invoke output", what: `${mode}: stream ${stream} joined`, data: Buffer.concat(chunks) });
      }
      sent.push({ exit: "Invoke status", what: mode, data: outcome.details });
    }
    const refused = await provider.invoke({ id: "r", toolName: carrier, arguments: { mode: "result" } }).done;
    for (const event of refused.events) sent.push(wire("Invoke events", "refused", ToolEventSchema, event));
    const call = {
      id: "p",
      toolName: "walk",
      arguments: { mode: "result" },
      callContext: { sessionId: "s", workingDirectory: "/tmp" },
    };
    sent.push(wire("unary response", "Preview", PreviewResponseSchema, await provider.preview(call)));
    sent.push(
      ...(await failure("Preview failing", () => provider.preview({ ...call, arguments: { mode: "preview-error" } }))),
    );
    sent.push(
      wire("unary response", "Render", RenderResponseSchema, await provider.render(Buffer.from(carrier), "v1")),
    );
    sent.push(...(await failure("Render failing", () => provider.render(new Uint8Array(0), "broken"))));
    sent.push(...(await failure("Render of an unknown version", () => provider.render(new Uint8Array(0), carrier))));
    // Two walks: each writes console.log, console.error, stray stdout, a raw stderr write and an unhandled rejection.
    const processLevelLines = () =>
      provider.stderr.filter((e) => e.raw.includes(redactionMarker) && !e.raw.includes("logger")).length;
    assert.ok(
      await eventually(() => processLevelLines() >= 10 && provider.kernel.calls.countTokens.length >= 2, 10_000),
      `stderr so far:\n${provider.stderr.map((e) => e.raw).join("\n")}`,
    );
  } finally {
    await provider.kill();
  }
  const calls = provider.kernel.calls;
  for (const request of calls.log) sent.push(wire("kernel callbacks", "Log", LogRequestSchema, request));
  for (const request of calls.emit) sent.push(wire("kernel callbacks", "Emit", EmitRequestSchema, request));
  for (const request of calls.runSession)
    sent.push(wire("kernel callbacks", "RunSession", RunSessionRequestSchema, request));
  for (const request of calls.countTokens)
    sent.push(wire("kernel callbacks", "CountTokens", CountTokensRequestSchema, request));
  for (const entry of provider.stderr) sent.push({ exit: "stderr", what: entry.raw.slice(0, 60), data: entry.raw });

  assert.deepEqual(leaks(sent), []);
  const reached = exitsShowingMarker(sent);
  for (const exit of [
    "Invoke events",
    "Invoke output",
    "unary response",
    "unary status",
    "grpc-status-details-bin",
    "kernel callbacks",
    "stderr",
  ]) {
    assert.ok(reached.has(exit), `the walk reached ${exit} (it shows the marker there)`);
  }
  const stderrText = provider.stderr.map((e) => e.raw).join("\n");
  for (const what of ["unhandled promise rejection", '"stream":"stdout"'])
    assert.ok(stderrText.includes(what), `stderr has the ${what} line`);
}
