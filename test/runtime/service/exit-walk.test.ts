// The exit walk, in-process: a provider whose every field, message, log line and error carries the
// configured secret in each supported form (raw, JSON-escaped, JSON-escaped twice, URL-encoded)
// walks every exit of the ToolService (docs/runtime.md#exits): the Invoke sink (every event kind,
// refusals, output chunks with a secret across the 64 KiB boundary and across writes), the unary
// responses and statuses (the grpc-status-details-bin trailer as the transport builds it), the
// stderr lines and the kernel callbacks. Nothing that leaves may hold the secret in any form, and
// every exit must show the marker, so the walk cannot pass by reaching nothing.
// soak/mutation-check.mjs removes the redaction at each exit in turn and expects this to fail.
import assert from "node:assert/strict";
import { it } from "node:test";
import { create } from "@bufbuild/protobuf";
import {
  CountTokensRequestSchema,
  EmitRequestSchema,
  LogRequestSchema,
  RunSessionRequestSchema,
} from "../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import {
  ConfigureRequestSchema,
  ConfigureResponseSchema,
  PreviewRequestSchema,
  PreviewResponseSchema,
  RenderRequestSchema,
  RenderResponseSchema,
  ToolEventSchema,
  type ToolEvent,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { createToolService, maxOutputChunkBytes } from "../../../runtime/service/calls/index.js";
import { serviceErrorFrom } from "../../../runtime/transport/tool-service-handlers.js";
import { statusDetailsTrailer } from "../../../runtime/errors/rpc-status-details.js";
import {
  carrier,
  exitsShowingMarker,
  exitWalkProvider,
  failureSent,
  invokeModes,
  leaks,
  secret,
  wire,
  type Sent,
} from "../../support/exit-walk-provider.js";
import { fakeKernel } from "./support/fake-kernel.js";
import { invokeRequest, recordingSink } from "./support/recording-sink.js";

/** A unary failure as the transport sends it: status message and grpc-status-details-bin. */
async function statusSent(what: string, error: unknown): Promise<Sent[]> {
  const status = await serviceErrorFrom(error);
  const trailer = status.metadata?.get(statusDetailsTrailer)[0];
  return [
    { exit: "unary status", what: `${what}: message`, data: status.details },
    { exit: "grpc-status-details-bin", what, data: trailer instanceof Buffer ? trailer : "" },
  ];
}

const failure = failureSent(statusSent);

it("no exit lets the secret out in any form, and every exit was walked", async () => {
  const kernel = fakeKernel();
  const stderr: string[] = [];
  const service = createToolService(exitWalkProvider({ processLevel: false }), {
    kernel,
    stderr: (line) => stderr.push(line),
  });
  const sent: Sent[] = [];

  // Configure: a rejected request carrying the secret (its values are secrets already), then the accepted one.
  sent.push(
    ...(await failure("Configure rejected", () =>
      service.configure(create(ConfigureRequestSchema, { config: { api_key: secret, [carrier]: carrier } })),
    )),
  );
  sent.push(
    wire(
      "unary response",
      "Configure",
      ConfigureResponseSchema,
      await service.configure(create(ConfigureRequestSchema, { config: { api_key: secret } })),
    ),
  );

  // Invoke: every way a call ends, a refused call, and the joined output of each stream.
  const events: ToolEvent[] = [];
  for (const mode of invokeModes) {
    const recording = recordingSink();
    await service.invoke(invokeRequest("walk", { mode }), recording.sink);
    const terminal = recording.events.at(-1)?.event.case;
    assert.ok(terminal === "result" || terminal === "error", `${mode}: ends with a terminal event, not ${terminal}`);
    events.push(...recording.events);
    for (const stream of [1, 2]) {
      const chunks = recording.events.flatMap((e) =>
        e.event.case === "outputChunk" && e.event.value.stream === stream ? [e.event.value.data] : [],
      );
      assert.ok(
        chunks.every((c) => c.byteLength <= maxOutputChunkBytes),
        "no chunk over the limit",
      );
      sent.push({ exit: "Invoke output", what: `${mode}: stream ${stream} joined`, data: Buffer.concat(chunks) });
    }
  }
  const refused = recordingSink();
  await service.invoke(invokeRequest(carrier, { mode: "result" }), refused.sink);
  events.push(...refused.events);
  for (const event of events) sent.push(wire("Invoke events", String(event.event.case), ToolEventSchema, event));

  // Preview and Render: responses and failures.
  const call = invokeRequest("walk", { mode: "result" }).call!;
  sent.push(
    wire(
      "unary response",
      "Preview",
      PreviewResponseSchema,
      await service.preview(create(PreviewRequestSchema, { call })),
    ),
  );
  sent.push(
    ...(await failure("Preview failing", () =>
      service.preview(create(PreviewRequestSchema, { call: { ...call, arguments: { mode: "preview-error" } } })),
    )),
  );
  sent.push(
    ...(await failure("Preview of an unknown tool", () =>
      service.preview(create(PreviewRequestSchema, { call: { ...call, toolName: carrier } })),
    )),
  );
  sent.push(
    wire(
      "unary response",
      "Render",
      RenderResponseSchema,
      await service.render(create(RenderRequestSchema, { schemaVersion: "v1", payload: Buffer.from(carrier) })),
    ),
  );
  sent.push(
    ...(await failure("Render failing", () =>
      service.render(create(RenderRequestSchema, { schemaVersion: "broken" })),
    )),
  );
  sent.push(
    ...(await failure("Render of an unknown version", () =>
      service.render(create(RenderRequestSchema, { schemaVersion: carrier })),
    )),
  );

  // Kernel callbacks and stderr (logs fall back there when the kernel refuses).
  kernel.failLog = new Error(`kernel refused: ${carrier}`);
  const fallback = recordingSink();
  await service.invoke(invokeRequest("walk", { mode: "result" }), fallback.sink);
  await new Promise((resolve) => setImmediate(resolve));
  for (const request of kernel.logs) sent.push(wire("kernel callbacks", "Log", LogRequestSchema, request));
  for (const request of kernel.emits) sent.push(wire("kernel callbacks", "Emit", EmitRequestSchema, request));
  for (const request of kernel.sessions)
    sent.push(wire("kernel callbacks", "RunSession", RunSessionRequestSchema, request));
  for (const request of kernel.counts)
    sent.push(wire("kernel callbacks", "CountTokens", CountTokensRequestSchema, request));
  for (const line of stderr) sent.push({ exit: "stderr", what: "line", data: line });

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
  for (const kind of ["progress", "partialResult", "outputChunk", "exitStatus", "result", "error"]) {
    assert.ok(
      events.some((e) => e.event.case === kind),
      `the walk sent a ${kind} event`,
    );
  }
  assert.ok(
    kernel.logs.length > 0 && kernel.emits.length > 0 && kernel.sessions.length > 0 && kernel.counts.length > 0,
    "every callback was called",
  );
});

it("the walk finds a leak: without Configure's secret the same provider's output holds every form", async () => {
  const kernel = fakeKernel();
  const service = createToolService(exitWalkProvider({ processLevel: false }), { kernel, stderr: () => {} });
  await service.configure(create(ConfigureRequestSchema, { config: { api_key: "an unrelated key" } }));
  const recording = recordingSink();
  await service.invoke(invokeRequest("walk", { mode: "tool-error" }), recording.sink);
  const sent = recording.events.map((e) => wire("Invoke events", String(e.event.case), ToolEventSchema, e));
  const found = leaks(sent);
  for (const form of ["raw", "JSON-escaped", "JSON-escaped twice", "URL-encoded"]) {
    assert.ok(
      found.some((line) => line.includes(`the secret ${form} at`)),
      `${form} is detected`,
    );
  }
});
