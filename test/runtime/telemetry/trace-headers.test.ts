// W3C Trace Context and Baggage across the gRPC boundary, and the environment rules that turn
// export on.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Metadata } from "@grpc/grpc-js";
import { propagation, trace } from "@opentelemetry/api";
import { batchSettings, exportRequest } from "../../../runtime/telemetry/trace-export.js";
import {
  contextFromTraceHeaders,
  formatTraceparent,
  parseTraceparent,
  traceHeadersFromContext,
  traceHeadersFromMetadata,
} from "../../../runtime/telemetry/trace-headers.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const spanId = "00f067aa0ba902b7";

describe("traceparent", () => {
  it("parses a valid header into a remote span context and formats it back", () => {
    const context = parseTraceparent(`00-${traceId}-${spanId}-01`);
    assert.deepEqual(context, { traceId, spanId, traceFlags: 1, isRemote: true });
    assert.equal(formatTraceparent(context!), `00-${traceId}-${spanId}-01`);
    assert.equal(parseTraceparent(`00-${traceId}-${spanId}-00`)?.traceFlags, 0);
  });

  it("rejects malformed headers", () => {
    for (const header of [
      "",
      "garbage",
      `ff-${traceId}-${spanId}-01`,
      `00-${"0".repeat(32)}-${spanId}-01`,
      `00-${traceId}-${"0".repeat(16)}-01`,
      `00-${traceId.toUpperCase()}-${spanId}-01`,
      `00-${traceId}-${spanId}-01-extra`,
      `00-${traceId.slice(1)}-${spanId}-01`,
    ]) {
      assert.equal(parseTraceparent(header), undefined, header);
    }
  });

  it("accepts a future version with extra fields, reading only the known ones", () => {
    assert.equal(parseTraceparent(`01-${traceId}-${spanId}-03-future`)?.traceFlags, 1);
  });
});

describe("headers and contexts", () => {
  it("read traceparent, tracestate and baggage from gRPC metadata", () => {
    const metadata = new Metadata();
    metadata.set("traceparent", `00-${traceId}-${spanId}-01`);
    metadata.add("tracestate", "a=1");
    metadata.add("tracestate", "b=2");
    metadata.set("baggage", "k=v");
    assert.deepEqual(traceHeadersFromMetadata(metadata), {
      traceparent: `00-${traceId}-${spanId}-01`,
      tracestate: "a=1,b=2",
      baggage: "k=v",
    });
    assert.equal(traceHeadersFromMetadata(new Metadata()), undefined);
  });

  it("round-trip through a context: parent span, tracestate and baggage", () => {
    const context = contextFromTraceHeaders({
      traceparent: `00-${traceId}-${spanId}-01`,
      tracestate: "vendor=x,other=y",
      baggage: "user=a%20b;prop=1,bad,=x,turn=7",
    });
    assert.equal(trace.getSpanContext(context)?.spanId, spanId);
    assert.equal(trace.getSpanContext(context)?.traceState?.get("other"), "y");
    const baggage = propagation.getBaggage(context);
    assert.equal(baggage?.getEntry("user")?.value, "a b");
    assert.equal(baggage?.getEntry("turn")?.value, "7");
    assert.equal(baggage?.getAllEntries().length, 2);
    assert.deepEqual(traceHeadersFromContext(context), {
      traceparent: `00-${traceId}-${spanId}-01`,
      tracestate: "vendor=x,other=y",
      baggage: "user=a%20b,turn=7",
    });
  });

  it("without a valid traceparent there is nothing to continue", () => {
    const context = contextFromTraceHeaders({ traceparent: "nonsense" });
    assert.equal(trace.getSpanContext(context), undefined);
    assert.equal(traceHeadersFromContext(context), undefined);
    assert.equal(traceHeadersFromContext(contextFromTraceHeaders(undefined)), undefined);
  });
});

describe("exportRequest", () => {
  it("is off without the standard variables, and when disabled or 'none'", () => {
    assert.deepEqual(exportRequest({}), { export: false });
    assert.deepEqual(exportRequest({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }), {
      export: false,
    });
    assert.deepEqual(exportRequest({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }), {
      export: false,
    });
    assert.deepEqual(exportRequest({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }), { export: false });
  });

  it("is on with an endpoint or OTEL_TRACES_EXPORTER=otlp, honouring the protocol", () => {
    assert.deepEqual(exportRequest({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }), {
      export: true,
      protocol: "http/protobuf",
    });
    assert.deepEqual(exportRequest({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/v1/traces" }), {
      export: true,
      protocol: "http/protobuf",
    });
    assert.deepEqual(exportRequest({ OTEL_TRACES_EXPORTER: "otlp" }), { export: true, protocol: "http/protobuf" });
    assert.deepEqual(exportRequest({ OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }), {
      export: true,
      protocol: "grpc",
    });
    assert.deepEqual(
      exportRequest({
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      }),
      {
        export: true,
        protocol: "http/json",
      },
    );
  });

  it("refuses, with a reason, what a provider cannot do", () => {
    const console = exportRequest({ OTEL_TRACES_EXPORTER: "console" });
    assert.equal(console.export, false);
    assert.match(console.export ? "" : (console.warning ?? ""), /stdout/);
    const protocol = exportRequest({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" });
    assert.match(protocol.export ? "" : (protocol.warning ?? ""), /not an OTLP protocol/);
  });
});

describe("batchSettings", () => {
  it("takes the positive integers of OTEL_BSP_*, ignoring the rest", () => {
    assert.deepEqual(batchSettings({}), {});
    assert.deepEqual(
      batchSettings({
        OTEL_BSP_SCHEDULE_DELAY: "200",
        OTEL_BSP_MAX_QUEUE_SIZE: "x",
        OTEL_BSP_EXPORT_TIMEOUT: "-1",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "64",
      }),
      {
        scheduledDelayMillis: 200,
        maxExportBatchSize: 64,
      },
    );
  });
});
