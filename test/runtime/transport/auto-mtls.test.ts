/**
 * go-plugin's AutoMTLS, as other hosts than the kernel set it: the host's certificate in
 * PLUGIN_CLIENT_CERT, the provider's in the handshake line's 6th field, mutual TLS on the
 * provider's server and on the broker's kernel callbacks. Through launch({ autoMTLS: true }) and
 * by hand with grpc-js clients that must be refused.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import {
  Client,
  credentials,
  Metadata,
  status,
  type ChannelCredentials,
  type ChannelOptions,
  type ServiceError,
} from "@grpc/grpc-js";
import { kernelEnvironment, launch, type LaunchedProvider } from "harness-tool/testing";
import { formatHandshakeLine, parseHandshakeLine } from "../../../runtime/transport/handshake-line.js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
} from "harness-tool/generated/grpc/health/v1/health_pb.js";
import { pluginHealthServiceName } from "../../../runtime/transport/health-check.js";
import { goPluginServices } from "../../../runtime/transport/grpc-service-definition.js";
import { certificatePemFromDer, mutualTlsChannel } from "../../../runtime/transport/tls/mutual-tls.js";
import { createSelfSignedCertificate } from "../../../runtime/transport/tls/self-signed-certificate.js";
import { fileGone, processGone } from "../interop/process-state.js";
import { sampleProvider, typeScriptProvider } from "../interop/providers.js";

const fake = typeScriptProvider("fake", "test/runtime/transport/fixtures/fake-core-provider.ts");
const ctx = { sessionId: "s-1", turnId: "t-1", workingDirectory: "/tmp" };

/** Health/Check("plugin") on a fresh grpc-js channel: the serving status, or the call's error. */
async function healthCheck(
  target: string,
  channel: ChannelCredentials,
  options: ChannelOptions = {},
): Promise<number | ServiceError> {
  const client = new Client(target, channel, options);
  const m = goPluginServices.health.check;
  try {
    return await new Promise<number | ServiceError>((resolve) =>
      client.makeUnaryRequest(
        m.path,
        m.requestSerialize,
        m.responseDeserialize,
        toBinary(HealthCheckRequestSchema, create(HealthCheckRequestSchema, { service: pluginHealthServiceName })),
        new Metadata(),
        {},
        (error, response) => resolve(error ?? fromBinary(HealthCheckResponseSchema, response as Uint8Array).status),
      ),
    );
  } finally {
    client.close();
  }
}

/** The provider started by hand with `extraEnv`: its first stdout line (if any before it exits), its exit and its output. */
async function startByHand(extraEnv: { [name: string]: string | undefined }) {
  const child = spawn(fake.command, fake.args, {
    cwd: fake.cwd,
    env: kernelEnvironment(extraEnv),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  const firstLine = await Promise.race([
    new Promise<string>((resolve) => createInterface({ input: child.stdout }).once("line", resolve)),
    exited.then(() => undefined),
  ]);
  return { child, firstLine, exited, output: () => ({ stdout, stderr }) };
}

describe("a provider launched with AutoMTLS", () => {
  let p: LaunchedProvider;
  let providerPem: string;
  let target: string;
  before(async () => {
    p = await launch(fake.command, { args: fake.args, cwd: fake.cwd, autoMTLS: true, handshakeTimeoutMs: 30_000 });
    providerPem = certificatePemFromDer(p.handshake.serverCertificate ?? new Uint8Array());
    target = `unix:${p.handshake.address}`;
  });
  after(() => p?.kill());

  test("the handshake line carries the provider's own certificate for localhost", () => {
    const certificate = new X509Certificate(providerPem);
    assert.equal(certificate.subjectAltName, "DNS:localhost");
    assert.ok(certificate.verify(certificate.publicKey), "self-signed");
    assert.deepEqual(p.strayStdout, []);
  });

  test("Ping, GetSchema, Configure and Invoke over mutual TLS; Log over the broker, which the host serves with TLS too", async () => {
    assert.equal(await p.ping(), 1);
    assert.ok((await p.getSchema()).tools.some((t) => t.name === "echo"));
    await assert.rejects(p.configure({}), /root is required/);
    await p.configure({ root: "/" });
    const echo = await p.invoke({ id: "e", toolName: "echo", arguments: { over: "tls" }, callContext: ctx }).done;
    assert.equal(echo.events[0]?.event.case, "result");
    // The recording kernel accepts only TLS connections presenting the provider's certificate.
    const logged = p.invoke({
      id: "l",
      toolName: "log",
      arguments: { message: "over the TLS broker" },
      callContext: { ...ctx, sessionId: "session-tls" },
    });
    assert.equal((await logged.done).code, 0);
    assert.equal(
      (await p.kernel.waitFor("log", (r) => r.entry?.message === "over the TLS broker")).sessionId,
      "session-tls",
    );
  });

  const refused: [string, () => { credentials: ChannelCredentials; options?: ChannelOptions }][] = [
    ["a plaintext client", () => ({ credentials: credentials.createInsecure() })],
    [
      "a TLS client without a client certificate",
      () => ({
        credentials: credentials.createSsl(Buffer.from(providerPem)),
        options: { "grpc.ssl_target_name_override": "localhost" },
      }),
    ],
    [
      "a client presenting another self-signed certificate",
      () => mutualTlsChannel({ own: createSelfSignedCertificate(), peerCertificatePem: providerPem }),
    ],
  ];
  for (const [who, channel] of refused) {
    test(`${who} is refused`, async () => {
      const { credentials: channelCredentials, options } = channel();
      const result = await healthCheck(target, channelCredentials, options);
      assert.equal(
        (result as ServiceError).code,
        status.UNAVAILABLE,
        `no health answer for ${who}, got ${String(result)}`,
      );
    });
  }

  test("after refusing those, the provider still serves its host; Kill() is graceful", async () => {
    assert.equal(await p.ping(), 1);
    const { pid } = p;
    assert.deepEqual(await p.kill().then((r) => [r.graceful, r.exitCode]), [true, 0]);
    assert.ok(processGone(pid) && fileGone(p.handshake.address), "no process, no socket left");
  });
});

test("serve(): a provider written with defineProvider answers AutoMTLS, kernel callbacks included", async () => {
  const p = await launch(sampleProvider.command, {
    args: sampleProvider.args,
    cwd: sampleProvider.cwd,
    autoMTLS: true,
    handshakeTimeoutMs: 30_000,
  });
  try {
    assert.ok(p.handshake.serverCertificate);
    assert.ok((await p.getSchema()).tools.some((t) => t.name === "note"));
    await p.configure({ root: "/" });
    const noted = await p.invoke({
      id: "n",
      toolName: "note",
      arguments: { message: "sample over TLS" },
      callContext: ctx,
    }).done;
    assert.equal(noted.events.at(-1)?.event.case, "result");
    await p.kernel.waitFor("log", (r) => r.entry?.message === "sample over TLS");
  } finally {
    assert.ok((await p.kill()).graceful);
  }
});

test("the raw handshake line with AutoMTLS: six fields, the 6th the certificate's DER in unpadded standard base64", async () => {
  const host = createSelfSignedCertificate();
  const started = await startByHand({ PLUGIN_CLIENT_CERT: host.certificatePem });
  try {
    const fields = (started.firstLine ?? "").split("|");
    assert.equal(fields.length, 6, started.firstLine);
    const field = fields[5] ?? "";
    assert.match(field, /^[A-Za-z0-9+/]+$/, "Go's RawStdEncoding: no padding, no URL alphabet");
    const certificate = new X509Certificate(Buffer.from(field, "base64"));
    assert.equal(certificate.subject, "CN=localhost");
    assert.ok(
      !certificate.publicKey.equals(new X509Certificate(host.certificatePem).publicKey),
      "the provider's own key, not the host's",
    );
  } finally {
    started.child.kill("SIGTERM");
    await started.exited;
  }
});

test("without AutoMTLS nothing changes: five fields, plaintext gRPC", async () => {
  const started = await startByHand({});
  try {
    assert.equal((started.firstLine ?? "").split("|").length, 5, started.firstLine);
    const handshake = parseHandshakeLine(started.firstLine ?? "", [1]);
    assert.equal(handshake.serverCertificate, undefined);
    assert.equal(await healthCheck(`unix:${handshake.address}`, credentials.createInsecure()), 1);
  } finally {
    started.child.kill("SIGTERM");
    await started.exited;
  }
});

for (const [what, value] of [
  ["not PEM at all", "not a certificate"],
  ["a PEM block that is not a certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"],
] as const) {
  test(`PLUGIN_CLIENT_CERT ${what}: one error line on stderr saying so, exit 1, no handshake`, async () => {
    const started = await startByHand({ PLUGIN_CLIENT_CERT: value });
    assert.equal(await started.exited, 1);
    const { stdout, stderr } = started.output();
    // stdout: no handshake; at most a start failure's one line giving the same reason.
    for (const line of stdout.split("\n").filter((l) => l !== ""))
      assert.match(line, /^harness-tool: the provider cannot start: PLUGIN_CLIENT_CERT \(AutoMTLS\)/);
    const lines = stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, stderr);
    const entry = JSON.parse(lines[0] ?? "") as { "@level": string; "@message": string };
    assert.equal(entry["@level"], "error");
    assert.match(entry["@message"], /PLUGIN_CLIENT_CERT \(AutoMTLS\)/);
  });
}

test("launch({ autoMTLS }) fails, as go-plugin's host does, when the provider answers without a certificate", async () => {
  // The variable removed: the provider never hears of AutoMTLS and prints five fields.
  await assert.rejects(
    launch(fake.command, {
      args: fake.args,
      cwd: fake.cwd,
      autoMTLS: true,
      env: { PLUGIN_CLIENT_CERT: undefined },
      handshakeTimeoutMs: 30_000,
    }),
    /handshake line carries no certificate/,
  );
});

test("the handshake line's 6th field: formatted without padding, parsed back; short extras ignored, padding refused", () => {
  const der = Buffer.from(Array.from({ length: 100 }, (_, i) => i)); // 100 bytes: base64 would pad with "="
  const line = formatHandshakeLine({ appVersion: 1, network: "unix", address: "/tmp/plugin9", serverCertificate: der });
  const field = line.trimEnd().split("|")[5] ?? "";
  assert.equal(field, der.toString("base64").replace(/=+$/, ""));
  assert.ok(!field.includes("="));
  assert.deepEqual(Buffer.from(parseHandshakeLine(line, [1]).serverCertificate ?? []), der);
  // go-plugin's host reads a 6th field as a certificate only above 50 characters.
  assert.equal(parseHandshakeLine("1|1|unix|/tmp/plugin9|grpc|", [1]).serverCertificate, undefined);
  assert.equal(parseHandshakeLine("1|1|unix|/tmp/plugin9|grpc|extra", [1]).serverCertificate, undefined);
  assert.throws(
    () => parseHandshakeLine(`1|1|unix|/tmp/plugin9|grpc|${der.toString("base64")}`, [1]),
    /unpadded standard base64/,
  );
});
