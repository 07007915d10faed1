// The span exit through the wire: a provider launched through the go-plugin handshake, exporting
// OTLP/protobuf to a receiver here, whose handler puts the configured secrets into every text a
// span can carry (test/runtime/telemetry/fixtures/span-secrets-provider.ts). The collector must receive
// none of them, in any form, in any byte of any export, and must receive the marker in each of
// those fields, so the spans did arrive, redacted rather than dropped.
import assert from "node:assert/strict";
import { it } from "node:test";
import { launch, type ReceivedSpan } from "../../../runtime/testing/index.js";
import { redactionMarker } from "../../../runtime/redaction/index.js";
import { startOtlpReceiver } from "../../../runtime/telemetry/otlp-receiver.js";
import { typeScriptProvider } from "../interop/providers.js";
import { formsOf, secret } from "../../support/exit-walk-provider.js";

const token = "trace-token-4711-QX";

it("a handler's span names, attributes, events, exceptions, status, links and trace state reach the collector redacted", async () => {
  const receiver = await startOtlpReceiver();
  const command = typeScriptProvider("span-secrets", "test/runtime/telemetry/fixtures/span-secrets-provider.ts");
  let spans: readonly ReceivedSpan[];
  try {
    const provider = await launch(command.command, {
      args: command.args,
      cwd: command.cwd,
      env: { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesEndpoint },
      handshakeTimeoutMs: 30_000,
    });
    try {
      await provider.configure({ api_key: secret, trace_token: token });
      const outcome = await provider.invoke({
        id: "plant-1",
        toolName: "plant",
        arguments: { mode: "all" },
        callContext: { workingDirectory: "/tmp" },
      }).done;
      assert.equal(
        outcome.events.at(-1)?.event.case,
        "result",
        `stderr: ${provider.stderr.map((e) => e.raw).join(" | ")}`,
      );
    } finally {
      // Export is flushed on the way out (serve()'s shutdown), so every span has arrived once kill() resolved.
      await provider.kill();
    }
    spans = receiver.spans();
    assert.deepEqual(receiver.failures, []);

    const bodies = Buffer.concat(receiver.bodies());
    assert.ok(bodies.length > 0, "the provider exported something");
    const leaked = [
      ...formsOf(secret).map((f) => ({ ...f, form: `api_key ${f.form}` })),
      ...formsOf(token).map((f) => ({ ...f, form: `trace_token ${f.form}` })),
    ]
      .filter(({ text }) => bodies.includes(Buffer.from(text, "utf8")))
      .map(({ form }) => form);
    assert.deepEqual(leaked, [], "no form of a secret in any byte the collector received");
  } finally {
    await receiver.close();
  }

  const shows = (where: string, text: string | undefined) =>
    assert.ok(text?.includes(redactionMarker), `${where} shows the marker: ${String(text)}`);
  const named = (prefix: string): ReceivedSpan => {
    const found = spans.filter((s) => s.name.startsWith(prefix));
    assert.equal(found.length, 1, `one span named ${prefix}…: ${spans.map((s) => s.name).join(", ")}`);
    return found[0]!;
  };

  const call = named("renamed ");
  assert.equal(call.attributes["pluggableharness.tool.call_id"], "plant-1");
  shows("the call span's name", call.name);
  shows("an attribute value", String(call.attributes["plain.key"]));
  shows(
    "an attribute key",
    Object.keys(call.attributes).find((k) => k.startsWith("key ")),
  );
  shows("a string array attribute", String(call.attributes["string.list"]));
  const event = call.events.find((e) => e.name.startsWith("event "));
  shows("an event name", event?.name);
  shows("an event attribute", String(event?.attributes["event.detail"]));
  const exception = call.events.find((e) => e.name === "exception");
  for (const key of ["exception.type", "exception.message", "exception.stacktrace"])
    shows(`the exception's ${key}`, String(exception?.attributes[key]));
  shows("the status message", call.statusMessage);

  const child = named("child ");
  assert.equal(child.parentSpanId, call.spanId);
  shows("a child span's name", child.name);
  shows("a child span's attribute", String(child.attributes["child.detail"]));
  shows("a child span's status message", child.statusMessage);
  assert.equal(child.links.length, 2);
  shows("a link's attribute", String(child.links[0]?.attributes["link.detail"]));
  shows("an added link's attribute", String(child.links[1]?.attributes["added.link"]));
  shows("a link's trace state", child.links[1]?.traceState);

  const active = named("active ");
  assert.equal(active.parentSpanId, call.spanId);
  shows("the active span's attribute", String(active.attributes["active.detail"]));
  const grandchild = named("grandchild ");
  assert.equal(grandchild.parentSpanId, active.spanId, "a global tracer's span on the active context");
  shows("a grandchild's name", grandchild.name);
  shows("a grandchild's attribute", String(grandchild.attributes["grandchild.detail"]));
  shows("a grandchild's event attribute", String(grandchild.events[0]?.attributes["grandchild.event"]));
  shows("the scope name", grandchild.scope);
  shows("the scope version", grandchild.scopeVersion);

  shows("a span's trace state", named("stateful").traceState);
});
