// The test host sends a traceparent on every call, as the kernel does, and with `traces: true`
// collects what the provider exports over OTLP (the real serve() path, the SDK loaded because the
// host set the standard variables): one tree per call under the host's span.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatSpanTree, launch, type ReceivedSpan } from "../../../runtime/testing/index.js";
import { sampleProvider } from "../interop/providers.js";

test("launch({ traces: true }): the provider's spans continue the host's trace and arrive by kill()", async () => {
  const p = await launch(sampleProvider.command, {
    args: sampleProvider.args,
    cwd: sampleProvider.cwd,
    traces: true,
    handshakeTimeoutMs: 30_000,
  });
  let killed = false;
  try {
    await p.configure({ root: process.cwd() });
    const noted = await p.invoke({
      id: "n-1",
      toolName: "note",
      arguments: { message: "a private note" },
      callContext: { sessionId: "s", workingDirectory: process.cwd() },
    }).done;
    assert.equal(noted.events.at(-1)?.event.case, "result");
    const ran = await p.invoke({
      id: "b-1",
      toolName: "bash",
      arguments: { command: "exit 5" },
      callContext: { sessionId: "s", workingDirectory: process.cwd() },
    }).done;
    assert.equal(ran.events.at(-1)?.event.case, "result");
    await p.kill();
    killed = true;
  } finally {
    if (!killed) await p.kill();
  }
  const spans = p.spans();
  const named = (name: string, callId?: string): ReceivedSpan => {
    const found = spans.filter(
      (s) => s.name === name && (callId === undefined || s.attributes["pluggableharness.tool.call_id"] === callId),
    );
    assert.equal(found.length, 1, `${name} ${callId ?? ""}: ${spans.map((s) => s.name).join(", ")}`);
    return found[0]!;
  };
  for (const span of spans) assert.equal(span.traceId, p.traceId, span.name);

  const configure = named("pluggableharness.tool.v1.ToolService/Configure");
  const note = named("pluggableharness.tool.v1.ToolService/Invoke", "n-1");
  const bash = named("pluggableharness.tool.v1.ToolService/Invoke", "b-1");
  // Each call's parent is the host's own span for that call: distinct, and not among the provider's.
  const providerIds = new Set(spans.map((s) => s.spanId));
  const parents = [configure, note, bash].map((s) => s.parentSpanId);
  assert.equal(new Set(parents).size, 3);
  for (const parent of parents) {
    assert.match(parent, /^[0-9a-f]{16}$/);
    assert.ok(!providerIds.has(parent));
  }

  assert.equal(note.kind, 2);
  assert.equal(note.attributes["pluggableharness.tool.name"], "note");
  assert.equal(note.attributes["pluggableharness.outcome"], "ok");
  const log = named("pluggableharness.kernel.v1.KernelCallbackService/Log");
  assert.equal(log.parentSpanId, note.spanId);
  // The callback reached the host's kernel with the provider's Log span as its parent.
  assert.deepEqual(p.kernel.traceparents.log, [`00-${p.traceId}-${log.spanId}-01`]);
  const child = named("spawn sh");
  assert.equal(child.parentSpanId, bash.spanId);
  assert.equal(child.attributes["process.exit.code"], 5);
  assert.equal(note.resource["service.name"], "sample");

  const tree = formatSpanTree(spans, () => `host span (trace ${p.traceId})`).join("\n");
  assert.match(
    tree,
    /ToolService\/Invoke \[server\].*pluggableharness\.tool\.name=bash[^\n]*\n\s*└─ spawn sh \[internal\].*process\.exit\.code=5/,
  );
  assert.match(
    tree,
    /ToolService\/Invoke \[server\].*pluggableharness\.tool\.name=note[^\n]*\n\s*└─ pluggableharness\.kernel\.v1\.KernelCallbackService\/Log \[client\]/,
  );
  assert.doesNotMatch(
    JSON.stringify(spans, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v)),
    /private note|exit 5/,
  );
});

test("OTEL_EXPORTER_OTLP_PROTOCOL=http/json: the provider loads the JSON exporter, and the receiver decodes it", async () => {
  const p = await launch(sampleProvider.command, {
    args: sampleProvider.args,
    cwd: sampleProvider.cwd,
    traces: true,
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    handshakeTimeoutMs: 30_000,
  });
  try {
    await p.configure({ root: process.cwd() });
    await p.invoke({
      id: "j-1",
      toolName: "echo",
      arguments: { text: "a" },
      callContext: { workingDirectory: process.cwd() },
    }).done;
  } finally {
    await p.kill();
  }
  const invoke = p.spans().find((s) => s.name === "pluggableharness.tool.v1.ToolService/Invoke");
  assert.ok(invoke, `no Invoke span; stderr: ${p.stderr.map((e) => e.raw).join(" | ")}`);
  assert.equal(invoke.traceId, p.traceId);
  assert.match(invoke.parentSpanId, /^[0-9a-f]{16}$/);
  assert.equal(invoke.kind, 2);
  assert.equal(invoke.attributes["pluggableharness.tool.call_id"], "j-1");
  assert.equal(invoke.attributes["rpc.grpc.status_code"], 0);
  assert.ok(invoke.endTimeUnixNano > invoke.startTimeUnixNano);
  assert.equal(invoke.resource["service.name"], "sample");
});
