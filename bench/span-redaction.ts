/**
 * `node --conditions=harness-tool-source --import tsx bench/span-redaction.ts`: what the span exit
 * (runtime/telemetry/redacting-span-exporter.ts) costs per exported span, against what the OTLP
 * exporter's own protobuf encoding of the same batch costs. A micro-measure, not a suite of
 * bench/run.ts: the redaction runs inside the batch processor's export, off the call's path, so
 * there is no latency row it could move; the figure is CPU per span (docs/runtime.md#exits).
 */
import { SpanKind } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { SecretExits } from "../runtime/service/calls/secret-exits.js";
import { redactSpan, type RedactText } from "../runtime/telemetry/redacting-span-exporter.js";

const batch = 512; // the batch processor's default maxExportBatchSize
const rounds = 200;
const secret = "sk-live-51HcQ2eZvKYlo2C0aB7xY9";

/** A batch of spans: half the runtime's Invoke spans (its nine attributes), half a handler's own (three attributes, an event). */
function spans(withSecret: boolean): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("harness-tool", "0.1.0");
  const text = withSecret ? `token ${secret} used` : "token used";
  for (let i = 0; i < batch / 2; i++) {
    tracer
      .startSpan("pluggableharness.tool.v1.ToolService/Invoke", {
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "grpc",
          "rpc.service": "pluggableharness.tool.v1.ToolService",
          "rpc.method": "Invoke",
          "rpc.grpc.status_code": 0,
          "pluggableharness.tool.name": "read_file",
          "pluggableharness.tool.kind": "data_source",
          "pluggableharness.tool.risk": "read_only",
          "pluggableharness.tool.call_id": `call-${i}`,
          "pluggableharness.outcome": "ok",
        },
      })
      .end();
    const own = tracer.startSpan("fetch page", {
      attributes: { "http.url": `https://example.com/${text}`, "http.method": "GET", "page.count": i },
    });
    own.addEvent("retry", { reason: text });
    own.end();
  }
  return exporter.getFinishedSpans();
}

function microsPerSpan(run: () => void): number {
  for (let i = 0; i < 20; i++) run();
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) run();
  return Number(process.hrtime.bigint() - started) / 1e3 / rounds / batch;
}

function exitsWith(secrets: string[]): RedactText {
  const exits = new SecretExits();
  exits.learn(secrets);
  return (text) => exits.text(text);
}

const clean = spans(false);
const carrying = spans(true);
const encode = microsPerSpan(() => ProtobufTraceSerializer.serializeRequest(clean));
const cases: Array<[string, ReadableSpan[], RedactText]> = [
  ["no secret configured", clean, exitsWith([])],
  ["1 secret, none in the spans", clean, exitsWith([secret])],
  [
    "4 secrets, none in the spans",
    clean,
    exitsWith([secret, "hunter2-password", "ghp_0123456789abcdef", "AKIA0123456789ABCDEF"]),
  ],
  ["1 secret, in half the spans (3 fields each)", carrying, exitsWith([secret])],
];
console.log(
  `span exit: ${batch}-span batches, ${rounds} rounds; protobuf encoding of the same batch ${encode.toFixed(2)} µs/span`,
);
for (const [name, input, text] of cases) {
  const cost = microsPerSpan(() => input.map((span) => redactSpan(span, text)));
  console.log(`  ${name.padEnd(44)} ${cost.toFixed(2)} µs/span  (${((cost / encode) * 100).toFixed(0)}% of encoding)`);
}
