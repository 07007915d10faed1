/**
 * The transport's wire pieces: go-plugin's messages and google.rpc.Status with a ToolError (generated
 * from vendor-proto/, through the paths the transport serves them on), grpc health, the handshake
 * line, the go-plugin environment and the host log lines.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { create, fromBinary, toBinary, type DescMethod } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { StatusSchema } from "harness-tool/generated/google/rpc/status_pb.js";
import { Health } from "harness-tool/generated/grpc/health/v1/health_pb.js";
import {
  InvokeResponseSchema,
  OutputStream,
  ToolErrorCategory,
  ToolErrorSchema,
  ToolService,
  type InvokeResponse,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { ConnInfoSchema, GRPCBroker } from "harness-tool/generated/plugin/grpc_broker_pb.js";
import { GRPCController } from "harness-tool/generated/plugin/grpc_controller_pb.js";
import { GRPCStdio, StdioData_Channel, StdioDataSchema } from "harness-tool/generated/plugin/grpc_stdio_pb.js";
import { parseHostLogLine } from "harness-tool/testing";
import { goPluginServices, grpcServiceDefinition } from "../../../runtime/transport/grpc-service-definition.js";
import { encodeOutputChunkResponse } from "../../../runtime/transport/output-chunk-encoding.js";
import { formatHandshakeLine, parseHandshakeLine } from "../../../runtime/transport/handshake-line.js";
import { hostLogLine, hostTimestamp } from "../../../runtime/transport/host-log.js";
import { kernelHandshake, readPluginEnvironment } from "../../../runtime/transport/plugin-environment.js";
import {
  statusWithToolError,
  toolErrorFromStatus,
  toolErrorTypeUrl,
} from "../../../runtime/errors/rpc-status-details.js";

test("go-plugin's and grpc health's raw methods are served on the generated descriptors' paths and shapes", () => {
  const expect = (served: { path: string; requestStream: boolean; responseStream: boolean }, method: DescMethod) => {
    assert.equal(served.path, `/${method.parent.typeName}/${method.name}`);
    assert.equal(
      served.requestStream,
      method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      served.path,
    );
    assert.equal(
      served.responseStream,
      method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      served.path,
    );
  };
  expect(goPluginServices.health.check, Health.method.check);
  expect(goPluginServices.broker.startStream, GRPCBroker.method.startStream);
  expect(goPluginServices.controller.shutdown, GRPCController.method.shutdown);
  expect(goPluginServices.stdio.streamStdio, GRPCStdio.method.streamStdio);
});

test("ConnInfo: go-plugin's field numbers, knock included; unknown fields skipped", () => {
  // Field numbers as go-plugin's grpc_broker.proto: service_id = 1, network = 2, address = 3.
  const w = new BinaryWriter();
  w.tag(1, WireType.Varint)
    .uint32(7)
    .tag(3, WireType.LengthDelimited)
    .string("127.0.0.1:1234")
    .tag(99, WireType.Varint)
    .uint32(5);
  w.tag(2, WireType.LengthDelimited).string("tcp");
  const info = fromBinary(ConnInfoSchema, w.finish(), { readUnknownFields: false });
  assert.deepEqual([info.serviceId, info.network, info.address, info.knock], [7, "tcp", "127.0.0.1:1234", undefined]);
  const knocked = create(ConnInfoSchema, {
    serviceId: 1,
    network: "unix",
    address: "/tmp/plugin123",
    knock: { knock: true },
  });
  assert.deepEqual(fromBinary(ConnInfoSchema, toBinary(ConnInfoSchema, knocked)), knocked);
});

test("StdioData round-trips", () => {
  const chunk = create(StdioDataSchema, { channel: StdioData_Channel.STDERR, data: new Uint8Array([1, 2, 3]) });
  assert.deepEqual(fromBinary(StdioDataSchema, toBinary(StdioDataSchema, chunk)), chunk);
});

test("google.rpc.Status carries the ToolError under its type URL", () => {
  const toolError = create(ToolErrorSchema, {
    category: ToolErrorCategory.INVALID_ARGUMENTS,
    message: "root is required",
    details: { field: "root" },
  });
  const status = fromBinary(StatusSchema, statusWithToolError(3, "root is required", toolError));
  assert.equal(status.code, 3);
  assert.equal(status.message, "root is required");
  assert.equal(status.details.length, 1);
  assert.equal(status.details[0]?.typeUrl, toolErrorTypeUrl);
  assert.equal(toolErrorTypeUrl, "type.googleapis.com/pluggableharness.tool.v1.ToolError");
  assert.deepEqual(toolErrorFromStatus(status), toolError);
  assert.equal(toolErrorFromStatus(fromBinary(StatusSchema, statusWithToolError(13, "x"))), undefined);
});

test("the handshake line: five fields without AutoMTLS; the parser checks what go-plugin's host checks", () => {
  const line = formatHandshakeLine({ appVersion: 1, network: "unix", address: "/tmp/plugin9" });
  assert.equal(line, "1|1|unix|/tmp/plugin9|grpc\n");
  assert.deepEqual(parseHandshakeLine(line, [1]), {
    coreVersion: 1,
    appVersion: 1,
    network: "unix",
    address: "/tmp/plugin9",
    protocol: "grpc",
  });
  assert.throws(() => parseHandshakeLine("hello", [1]), /unrecognized handshake line/);
  assert.throws(() => parseHandshakeLine("2|1|unix|/x|grpc", [1]), /core protocol version/);
  assert.throws(() => parseHandshakeLine("1|3|unix|/x|grpc", [1]), /not one of the offered/);
  assert.throws(() => parseHandshakeLine("1|1|udp|/x|grpc", [1]), /unknown network/);
  assert.throws(() => parseHandshakeLine("1|1|unix|/x", [1]), /only grpc/);
});

const kernelEnv = { [kernelHandshake.cookieKey]: kernelHandshake.cookieValue, PLUGIN_PROTOCOL_VERSIONS: "1" };

test("the environment: the cookie, versions, network and ports", () => {
  const missing = readPluginEnvironment({});
  assert.ok(!missing.ok && /this binary is a plugin; it is started by the kernel/.test(missing.message));
  assert.equal(readPluginEnvironment({ [kernelHandshake.cookieKey]: "wrong" }).ok, false);

  const ok = readPluginEnvironment({ ...kernelEnv, PLUGIN_UNIX_SOCKET_DIR: "/run/x" });
  assert.ok(ok.ok);
  assert.equal(ok.value.appVersion, 1);
  assert.equal(ok.value.network, "unix");
  assert.equal(ok.value.socketDir, "/run/x");
  assert.deepEqual([ok.value.minPort, ok.value.maxPort], [10000, 25000]);

  const none = readPluginEnvironment({ [kernelHandshake.cookieKey]: kernelHandshake.cookieValue });
  assert.ok(none.ok && none.value.appVersion === 1, "no PLUGIN_PROTOCOL_VERSIONS: the provider's own version");
  const picked = readPluginEnvironment({ ...kernelEnv, PLUGIN_PROTOCOL_VERSIONS: "3, 1,2" });
  assert.ok(picked.ok && picked.value.appVersion === 1);
  const incompatible = readPluginEnvironment({ ...kernelEnv, PLUGIN_PROTOCOL_VERSIONS: "2,3" });
  assert.ok(!incompatible.ok && /incompatible plugin protocol versions/.test(incompatible.message));

  const tcp = readPluginEnvironment({
    ...kernelEnv,
    HARNESS_TOOL_PLUGIN_NETWORK: "tcp",
    PLUGIN_MIN_PORT: "20000",
    PLUGIN_MAX_PORT: "20010",
  });
  assert.ok(tcp.ok && tcp.value.network === "tcp" && tcp.value.minPort === 20000 && tcp.value.maxPort === 20010);
  const preferred = readPluginEnvironment(kernelEnv, "tcp");
  assert.ok(preferred.ok && preferred.value.network === "tcp");
  assert.equal(readPluginEnvironment({ ...kernelEnv, HARNESS_TOOL_PLUGIN_NETWORK: "udp" }).ok, false);
  assert.equal(readPluginEnvironment({ ...kernelEnv, PLUGIN_MIN_PORT: "30000", PLUGIN_MAX_PORT: "20000" }).ok, false);
  const mtls = readPluginEnvironment({ ...kernelEnv, PLUGIN_CLIENT_CERT: "-----BEGIN CERTIFICATE-----" });
  assert.ok(
    mtls.ok && mtls.value.clientCertificatePem === "-----BEGIN CERTIFICATE-----",
    "AutoMTLS: the host's certificate, checked by serveGoPlugin",
  );
  const emptyCert = readPluginEnvironment({ ...kernelEnv, PLUGIN_CLIENT_CERT: "" });
  assert.ok(
    emptyCert.ok && emptyCert.value.clientCertificatePem === undefined,
    "go-plugin: an empty PLUGIN_CLIENT_CERT is no AutoMTLS",
  );
});

test("host log lines: six fractional digits in @timestamp (go-plugin's layout), level kept", () => {
  assert.equal(hostTimestamp(new Date("2024-05-06T07:08:09.123Z")), "2024-05-06T07:08:09.123000Z");
  const line = hostLogLine("warn", "two\nlines", { tool: "x" });
  assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"), "one line");
  const entry = parseHostLogLine(line.trimEnd());
  assert.equal(entry.level, "warn");
  assert.equal(entry.message, "two\nlines");
  assert.deepEqual(entry.fields, { tool: "x" });
  assert.match(JSON.parse(line)["@timestamp"], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.equal(parseHostLogLine("[ERROR] boom").level, "error");
  assert.equal(parseHostLogLine("plain").level, "debug");
  const long = JSON.parse(hostLogLine("info", "x".repeat(100_000)))["@message"] as string;
  assert.ok(long.length < 64 * 1024, "a line stays under the host's 64 KiB line buffer");
});

test("Invoke's output chunks take the one-copy encoding, byte for byte toBinary's; other events and unknown fields keep toBinary", () => {
  const serialize = grpcServiceDefinition(ToolService).invoke?.responseSerialize as (value: InvokeResponse) => Buffer;
  const chunk = (stream: number, data: Uint8Array) =>
    create(InvokeResponseSchema, {
      event: { event: { case: "outputChunk", value: { stream: stream as OutputStream, data } } },
    });
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.uint8Array({ maxLength: 300 }), (stream, data) => {
      const message = chunk(stream, data);
      const fast = encodeOutputChunkResponse(message);
      assert.ok(fast, "an output chunk takes the one-copy path");
      assert.deepEqual(new Uint8Array(fast), toBinary(InvokeResponseSchema, message));
      assert.deepEqual(new Uint8Array(serialize(message)), toBinary(InvokeResponseSchema, message));
    }),
  );
  // Sizes whose lengths need two and three varint bytes: 64 KiB is the largest chunk the runtime sends.
  for (const size of [127, 128, 16_383, 16_384, 65_536, 300_000]) {
    const message = chunk(OutputStream.STDOUT, new Uint8Array(size).fill(7));
    assert.deepEqual(new Uint8Array(serialize(message)), toBinary(InvokeResponseSchema, message), `${size} bytes`);
  }
  const result = create(InvokeResponseSchema, { event: { event: { case: "result", value: { payload: { a: 1 } } } } });
  assert.equal(encodeOutputChunkResponse(result), undefined);
  assert.deepEqual(new Uint8Array(serialize(result)), toBinary(InvokeResponseSchema, result));
  const negative = chunk(-1, new Uint8Array([1]));
  assert.equal(encodeOutputChunkResponse(negative), undefined, "a negative enum value is left to toBinary");
  assert.deepEqual(new Uint8Array(serialize(negative)), toBinary(InvokeResponseSchema, negative));
  const unknown = chunk(1, new Uint8Array([1]));
  unknown.$unknown = [{ no: 99, wireType: WireType.Varint, data: new Uint8Array([5]) }];
  assert.equal(encodeOutputChunkResponse(unknown), undefined, "unknown fields are left to toBinary");
  assert.deepEqual(new Uint8Array(serialize(unknown)), toBinary(InvokeResponseSchema, unknown));
});

test("the server's output chunks are written into one reused buffer (grpc-js copies each into its frame at once); a larger one gets its own", () => {
  const serialize = grpcServiceDefinition(ToolService).invoke?.responseSerialize as (value: InvokeResponse) => Buffer;
  const chunk = (data: Uint8Array) =>
    create(InvokeResponseSchema, {
      event: { event: { case: "outputChunk", value: { stream: OutputStream.STDOUT, data } } },
    });
  const first = serialize(chunk(new Uint8Array(64 * 1024).fill(1)));
  const firstBytes = new Uint8Array(first);
  const second = serialize(chunk(new Uint8Array(100).fill(2)));
  assert.equal(second.buffer, first.buffer, "the second chunk reuses the first one's memory");
  assert.deepEqual(firstBytes, toBinary(InvokeResponseSchema, chunk(new Uint8Array(64 * 1024).fill(1))));
  assert.deepEqual(new Uint8Array(second), toBinary(InvokeResponseSchema, chunk(new Uint8Array(100).fill(2))));
  const large = serialize(chunk(new Uint8Array(200 * 1024).fill(3)));
  assert.notEqual(large.buffer, first.buffer, "a chunk above the kept size is not kept");
  assert.deepEqual(new Uint8Array(large), toBinary(InvokeResponseSchema, chunk(new Uint8Array(200 * 1024).fill(3))));
});
