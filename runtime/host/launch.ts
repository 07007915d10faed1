/**
 * `launch()`: the host side of go-plugin in TypeScript, doing what the kernel does: spawn the
 * provider with the kernel's minimal environment (no shell), read the handshake line, connect,
 * open the broker stream and serve a recording KernelCallbackService on broker ID 1, call
 * ToolService, and `kill()` the way go-plugin's Client.Kill does.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { create, fromBinary, toBinary, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import { Metadata, type ClientDuplexStream, type ServiceError } from "@grpc/grpc-js";
import {
  ConfigureRequestSchema,
  DescribeRequestSchema,
  GetSchemaRequestSchema,
  InvokeRequestSchema,
  PreviewRequestSchema,
  RenderRequestSchema,
  ToolService,
  type ConfigureResponse,
  type DescribeResponse,
  type GetSchemaResponse,
  type PreviewResponse,
  type RenderResponse,
  type ToolCallSchema,
} from "../generated/pluggableharness/tool/v1/tool_pb.js";
import {
  ConnInfoSchema,
  EmptySchema,
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
} from "../transport/go-plugin-messages.js";
import { goPluginServices } from "../transport/grpc-service-definition.js";
import { parseHandshakeLine, type Handshake } from "../transport/handshake-line.js";
import { pluginHealthServiceName } from "../transport/health-check.js";
import {
  certificatePemFromDer,
  mutualTlsChannel,
  mutualTlsServerCredentials,
  type MutualTls,
} from "../transport/tls/mutual-tls.js";
import { kernelHandshake } from "../transport/plugin-environment.js";
import { createSelfSignedCertificate, type SelfSignedCertificate } from "../transport/tls/self-signed-certificate.js";
import { startOtlpReceiver, type OtlpReceiver } from "../telemetry/otlp-receiver.js";
import type { ReceivedSpan } from "../telemetry/otlp-trace-request.js";
import { hostTraceparent, randomTraceId } from "../telemetry/trace-headers.js";
import { grpcTarget, ServiceClient, type CallControl } from "../transport/service-client.js";
import { parseHostLogLine, type HostLogEntry } from "./host-log-lines.js";
import { describeExit, type ProviderExit } from "./process-exit.js";
import { InvokeCall, type InvokeReadOptions } from "./invoke-call.js";
import { ProviderCallError } from "./provider-call-error.js";
import { HookDispatchError } from "./hook-dispatch-error.js";
import {
  DispatchHookRequestSchema,
  HookPayloadSchema,
  HookSubscriberService,
  type DispatchHookResponse,
} from "../generated/pluggableharness/hook/v1/hook_pb.js";
import {
  hookModeTable,
  hookPointTable,
  type HookModeName,
  type HookPointName,
} from "../provider/hook-subscriptions.js";
import { hookPayloadSchemas } from "../provider/hook-payload-schemas.js";
import { startRecordingKernel, type KernelResponders, type RecordingKernel } from "./recording-kernel.js";

/** Options of launch(). */
export interface LaunchOptions {
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Operator extras, added to the kernel's minimal environment (and able to override it, for tests). */
  readonly env?: { readonly [name: string]: string | undefined };
  /** How long to wait for the handshake line; default 10 s. */
  readonly handshakeTimeoutMs?: number;
  /** Answers of the recording kernel. */
  readonly kernel?: KernelResponders;
  /**
   * go-plugin's AutoMTLS: a one-time client certificate in PLUGIN_CLIENT_CERT, the provider's
   * certificate from the handshake line's 6th field, mutual TLS on the connection and on the
   * broker's kernel callbacks. Default false, as the kernel.
   */
  readonly autoMTLS?: boolean;
  /**
   * Collect the provider's spans: an OTLP receiver on 127.0.0.1 is started and the provider's
   * exporter pointed at it (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), so `spans()` holds what it
   * exported; complete once kill() resolved (the provider flushes on shutdown). The provider needs
   * the OpenTelemetry SDK installed (docs/runtime.md#tracing). Default false.
   */
  readonly traces?: boolean;
  /**
   * Called with each stderr line as it arrives (the same entries `stderr` collects), for showing
   * the provider's log live.
   */
  readonly onStderrLine?: (entry: HostLogEntry) => void;
  /** Called with the process id as soon as the provider is spawned, before its handshake (a host's own deadline kills it by this). */
  readonly onSpawn?: (pid: number) => void;
}

/** How kill() ended the provider. */
export interface KillReport {
  /** True when the provider exited by itself within the 2 s go-plugin allows; false when SIGKILLed. */
  readonly graceful: boolean;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** From the start of kill() until the process had exited and closed stdout and stderr. */
  readonly durationMs: number;
}

/** Options of one DispatchHook. */
export interface HookDispatchOptions extends CallControl {
  /** DispatchHookRequest.subscription_id. */
  readonly subscriptionId?: string;
  /** The call's deadline as a point in time (the kernel's per-subscriber timeout); `timeoutMs` is the same from now. */
  readonly deadline?: Date;
}

/** go-plugin's Kill() waits this long for a graceful exit before SIGKILL. */
export const killGraceMs = 2000;

/** A provider launched like the kernel launches it. */
export interface LaunchedProvider {
  readonly pid: number;
  readonly handshake: Handshake;
  /**
   * The trace every call continues: like the kernel, the host sends a `traceparent` on each call
   * (this trace id, a fresh span id per call, sampled).
   */
  readonly traceId: string;
  /** The spans the provider exported so far (only with `traces: true`; empty otherwise). */
  spans(): readonly ReceivedSpan[];
  /** The recorded KernelCallbackService calls (Log, Emit, RunSession, CountTokens). */
  readonly kernel: RecordingKernel;
  /** Every stderr line so far, with the level the host would log it at. */
  readonly stderr: readonly HostLogEntry[];
  /** Lines written to stdout after the handshake line (the host discards them; there should be none). */
  readonly strayStdout: readonly string[];
  /** Resolves when the process has exited and closed stdout and stderr. */
  readonly exited: Promise<ProviderExit>;
  /** grpc.health.v1.Health/Check("plugin"), as the host's Ping: the serving status. */
  ping(): Promise<number>;
  getSchema(control?: CallControl): Promise<GetSchemaResponse>;
  /** Configure; a rejection is a ProviderCallError carrying the status's ToolError. */
  configure(config: JsonObject, control?: CallControl): Promise<ConfigureResponse>;
  /** Starts an Invoke; `read` makes the host read slowly or keep only a digest of the output. */
  invoke(call: MessageInitShape<typeof ToolCallSchema>, read?: InvokeReadOptions): InvokeCall;
  render(payload: Uint8Array, schemaVersion: string, control?: CallControl): Promise<RenderResponse>;
  preview(call: MessageInitShape<typeof ToolCallSchema>, control?: CallControl): Promise<PreviewResponse>;
  describe(control?: CallControl): Promise<DescribeResponse>;
  /**
   * HookSubscriberService.DispatchHook on the provider's connection, as the kernel fires a hook:
   * `point`'s payload in the HookPayload variant for it, `mode` as the agent.hcl subscription says.
   * Resolves with the response as the kernel receives it; a failure is a HookDispatchError with
   * the gRPC code and the HookError the provider packed.
   */
  dispatchHook<P extends HookPointName>(
    point: P,
    mode: HookModeName,
    payload: MessageInitShape<(typeof hookPayloadSchemas)[P]>,
    options?: HookDispatchOptions,
  ): Promise<DispatchHookResponse>;
  /** DispatchHook with a request as given: for requests the kernel should never send (a mode unset, no payload). */
  dispatchHookRequest(
    request: MessageInitShape<typeof DispatchHookRequestSchema>,
    options?: HookDispatchOptions,
  ): Promise<DispatchHookResponse>;
  /** go-plugin's Kill(): close the broker, call Shutdown, close the connection, wait 2 s, SIGKILL. */
  kill(): Promise<KillReport>;
}

/**
 * The environment the kernel gives a provider: PATH, HOME, TMPDIR, operator extras, go-plugin's
 * variables; and HARNESS_TOOL_TRANSPORT when set here, the transport the provider serves on.
 */
export function kernelEnvironment(extra: LaunchOptions["env"] = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "OTEL_RESOURCE_ATTRIBUTES", "HARNESS_TOOL_TRANSPORT"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    [kernelHandshake.cookieKey]: kernelHandshake.cookieValue,
    PLUGIN_MIN_PORT: "10000",
    PLUGIN_MAX_PORT: "25000",
    PLUGIN_PROTOCOL_VERSIONS: kernelHandshake.appVersions.join(","),
  });
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** The provider's process as the host sees it before the handshake. */
interface StartedProcess {
  readonly child: ChildProcess;
  readonly stderr: HostLogEntry[];
  readonly strayStdout: string[];
  readonly exited: Promise<ProviderExit>;
  readonly spawnError: Promise<never>;
  readonly firstLine: Promise<string>;
}

/** Spawns the provider as go-plugin does: the kernel's environment, stdout and stderr read by the host. */
function startProcess(command: string, options: LaunchOptions, env: NodeJS.ProcessEnv): StartedProcess {
  const child = spawn(command, options.args ?? [], { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const stderr: HostLogEntry[] = [];
  const strayStdout: string[] = [];
  const exited = new Promise<ProviderExit>((resolve) =>
    child.once("close", (exitCode, signal) => resolve({ exitCode, signal })),
  );
  const spawnError = new Promise<never>((_, reject) => child.once("error", reject));
  createInterface({ input: child.stderr! }).on("line", (line) => {
    const entry = parseHostLogLine(line);
    stderr.push(entry);
    options.onStderrLine?.(entry);
  });
  const lines = createInterface({ input: child.stdout! });
  const firstLine = new Promise<string>((resolve) => {
    let first = true;
    lines.on("line", (line) => {
      if (first) {
        first = false;
        resolve(line);
      } else strayStdout.push(line);
    });
  });
  return { child, stderr, strayStdout, exited, spawnError, firstLine };
}

/**
 * The handshake line within the timeout, parsed as go-plugin's host parses it, and the TLS the
 * connection needs; on any failure the process is killed and the error carries its stderr.
 */
async function awaitHandshake(
  started: StartedProcess,
  hostCertificate: SelfSignedCertificate | undefined,
  timeoutMs: number,
  receiver: OtlpReceiver | undefined,
): Promise<{ handshake: Handshake; tls: MutualTls | undefined }> {
  const tail = () =>
    started.stderr
      .slice(-15)
      .map((e) => `  ${e.raw}`)
      .join("\n") || "  (nothing)";
  let timer: NodeJS.Timeout | undefined;
  try {
    const line = await Promise.race([
      started.firstLine,
      started.spawnError,
      started.exited.then((how): never => {
        throw new Error(
          `the provider exited before printing its handshake line: ${describeExit(how)}; its stderr:\n${tail()}`,
        );
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no handshake line from the provider within ${timeoutMs} ms; its stderr:\n${tail()}`)),
          timeoutMs,
        );
      }),
    ]);
    const handshake = parseHandshakeLine(line, kernelHandshake.appVersions);
    const tls = hostCertificate && { own: hostCertificate, peerCertificatePem: providerCertificatePem(handshake) };
    // go-plugin's host without AutoMTLS dereferences a nil TLS config on a certificate.
    if (!hostCertificate && handshake.serverCertificate)
      throw new Error(`the provider sent a certificate, but the host did not ask for AutoMTLS: ${line}`);
    return { handshake, tls };
  } catch (error) {
    await killBeforeHandshake(started);
    await receiver?.close();
    // A line that is no handshake (a start failure's reason, say): the stderr behind it, as the
    // kernel's log would show it.
    if (error instanceof Error && !error.message.includes("its stderr:")) error.message += `\nits stderr:\n${tail()}`;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ends a provider that never completed the handshake. Waits for the process itself, not for its
 * pipes: a wrapper script that started the provider without `exec` leaves a grandchild holding
 * stdout and stderr open, and waiting for them would outlast the handshake timeout by as long as
 * the grandchild lives. Our ends of the pipes are closed instead.
 */
async function killBeforeHandshake(started: StartedProcess): Promise<void> {
  const { child } = started;
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
  child.stdout?.destroy();
  child.stderr?.destroy();
  await started.exited;
}

/** As go-plugin's host: the broker stream opened right after connecting, the callback server announced on broker ID 1. */
function openBroker(
  client: ServiceClient<typeof ToolService>,
  kernelAddress: string,
): ClientDuplexStream<Uint8Array, Uint8Array> {
  const broker = client.raw.makeBidiStreamRequest(
    goPluginServices.broker.startStream.path,
    goPluginServices.broker.startStream.requestSerialize,
    goPluginServices.broker.startStream.responseDeserialize,
    new Metadata(),
  ) as ClientDuplexStream<Uint8Array, Uint8Array>;
  broker.on("error", () => {});
  broker.write(
    toBinary(ConnInfoSchema, create(ConnInfoSchema, { serviceId: 1, network: "unix", address: kernelAddress })),
  );
  return broker;
}

/** A unary call of one of go-plugin's own services, on raw bytes. */
function rawUnary(
  client: ServiceClient<typeof ToolService>,
  method: typeof goPluginServices.health.check,
  request: Uint8Array,
  timeout?: number,
): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    client.raw.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      new Metadata(),
      timeout === undefined ? {} : { deadline: Date.now() + timeout },
      (error: ServiceError | null, response?: Uint8Array) => (error ? reject(error) : resolve(response as Uint8Array)),
    );
  });
}

/** A ToolService unary call whose gRPC failure becomes a ProviderCallError. */
async function unary<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw isServiceError(error) ? ProviderCallError.from(method, error) : error;
  }
}

/**
 * Launches a provider binary and connects to it as the kernel does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { launch } from "harness-tool/host";
 *
 * const provider = await launch("dist/provider.mjs");
 * try {
 *   await provider.configure({});
 *   const call = provider.invoke({
 *     id: "1",
 *     toolName: "read_note",
 *     arguments: { title: "hello" },
 *     callContext: { sessionId: "s", turnId: "1", workingDirectory: process.cwd() },
 *   });
 *   const { events } = await call.done;
 *   assert.equal(events.at(-1)?.event.case, "result");
 * } finally {
 *   assert.ok((await provider.kill()).graceful);
 * }
 * ```
 */
export async function launch(command: string, options: LaunchOptions = {}): Promise<LaunchedProvider> {
  const { started, handshake, tls, receiver } = await spawnProvider(command, options);
  const { child, exited } = started;

  const kernel = await startRecordingKernel(
    options.kernel,
    tls ? { credentials: mutualTlsServerCredentials(tls) } : {},
  );
  const client = new ServiceClient(
    ToolService,
    grpcTarget(handshake.network, handshake.address),
    tls && mutualTlsChannel(tls),
  );
  const broker = openBroker(client, kernel.address);
  // The kernel dials HookSubscriberService on the connection it already holds to the provider.
  const hooks = new ServiceClient(
    HookSubscriberService,
    grpcTarget(handshake.network, handshake.address),
    tls && mutualTlsChannel(tls),
  );

  // As the kernel's otelgrpc client handler: every call carries a traceparent.
  const traceId = randomTraceId();
  const traced = (control: CallControl = {}): CallControl => ({
    ...control,
    metadata: { ...control.metadata, traceparent: hostTraceparent(traceId) },
  });
  const dispatchHookRequest = hookDispatcher(hooks, traced);

  let killing: Promise<KillReport> | undefined;
  return {
    pid: child.pid as number,
    handshake,
    traceId,
    spans: () => receiver?.spans() ?? [],
    kernel,
    stderr: started.stderr,
    strayStdout: started.strayStdout,
    exited,
    ...toolServiceCalls(client, traced),
    dispatchHookRequest,
    dispatchHook: (point, mode, payload, options) =>
      dispatchHookRequest(hookRequest(point, mode, payload, options?.subscriptionId), options),
    kill: () =>
      (killing ??= killLikeGoPlugin(
        child,
        exited,
        () => broker.cancel(),
        () =>
          rawUnary(
            client,
            goPluginServices.controller.shutdown,
            toBinary(EmptySchema, create(EmptySchema)),
            killGraceMs,
          ),
        () => {
          hooks.close();
          client.close();
        },
      ).finally(() => Promise.all([kernel.close(), receiver?.close()]))),
  };
}

/**
 * Spawns the provider with the kernel's environment (the trace exporter's and AutoMTLS's
 * variables added when asked for) and waits for its handshake line.
 */
async function spawnProvider(command: string, options: LaunchOptions) {
  const hostCertificate = options.autoMTLS ? createSelfSignedCertificate() : undefined;
  const receiver: OtlpReceiver | undefined = options.traces ? await startOtlpReceiver() : undefined;
  const traceEnv = receiver
    ? { OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.tracesEndpoint }
    : {};
  const started = startProcess(
    command,
    options,
    kernelEnvironment({
      ...traceEnv,
      ...(hostCertificate ? { PLUGIN_CLIENT_CERT: hostCertificate.certificatePem } : {}),
      ...options.env,
    }),
  );
  if (started.child.pid !== undefined) options.onSpawn?.(started.child.pid);
  const { handshake, tls } = await awaitHandshake(
    started,
    hostCertificate,
    options.handshakeTimeoutMs ?? 10_000,
    receiver,
  );
  return { started, handshake, tls, receiver };
}

type Traced = (control?: CallControl) => CallControl;

/** The ToolService calls and the health check, as the kernel makes them on the provider's connection. */
function toolServiceCalls(
  client: ServiceClient<typeof ToolService>,
  traced: Traced,
): Pick<LaunchedProvider, "ping" | "getSchema" | "configure" | "invoke" | "render" | "preview" | "describe"> {
  return {
    ping: async () => {
      const request = toBinary(
        HealthCheckRequestSchema,
        create(HealthCheckRequestSchema, { service: pluginHealthServiceName }),
      );
      return fromBinary(HealthCheckResponseSchema, await rawUnary(client, goPluginServices.health.check, request))
        .status;
    },
    getSchema: (control) =>
      unary("GetSchema", () =>
        client.unary(ToolService.method.getSchema, create(GetSchemaRequestSchema), traced(control)),
      ),
    configure: (config, control) =>
      unary("Configure", () =>
        client.unary(ToolService.method.configure, create(ConfigureRequestSchema, { config }), traced(control)),
      ),
    invoke: (call, read) =>
      new InvokeCall(
        client.serverStream(ToolService.method.invoke, create(InvokeRequestSchema, { call }), traced()),
        read,
      ),
    render: (payload, schemaVersion, control) =>
      unary("Render", () =>
        client.unary(
          ToolService.method.render,
          create(RenderRequestSchema, { payload, schemaVersion }),
          traced(control),
        ),
      ),
    preview: (call, control) =>
      unary("Preview", () =>
        client.unary(ToolService.method.preview, create(PreviewRequestSchema, { call }), traced(control)),
      ),
    describe: (control) =>
      unary("Describe", () =>
        client.unary(ToolService.method.describe, create(DescribeRequestSchema), traced(control)),
      ),
  };
}

/** DispatchHook as the kernel sends it: `deadline` as the call's timeout, a failure as a HookDispatchError. */
function hookDispatcher(
  hooks: ServiceClient<typeof HookSubscriberService>,
  traced: Traced,
): LaunchedProvider["dispatchHookRequest"] {
  return async (request, options = {}) => {
    const { deadline, subscriptionId: _, ...control } = options;
    const timed = deadline === undefined ? control : { ...control, timeoutMs: deadline.getTime() - Date.now() };
    try {
      return await hooks.unary(
        HookSubscriberService.method.dispatchHook,
        create(DispatchHookRequestSchema, request),
        traced(timed),
      );
    } catch (error) {
      throw isServiceError(error) ? HookDispatchError.from(error) : error;
    }
  };
}

/** The DispatchHookRequest the kernel fires for `point`: its payload in the HookPayload variant for it. */
function hookRequest<P extends HookPointName>(
  point: P,
  mode: HookModeName,
  payload: MessageInitShape<(typeof hookPayloadSchemas)[P]>,
  subscriptionId: string | undefined,
): MessageInitShape<typeof DispatchHookRequestSchema> {
  return {
    payload: create(HookPayloadSchema, {
      payload: {
        case: hookPointTable[point].variant,
        value: create(hookPayloadSchemas[point] as (typeof hookPayloadSchemas)["session-start"], payload as never),
      },
    } as never),
    mode: hookModeTable[mode],
    ...(subscriptionId === undefined ? {} : { subscriptionId }),
  };
}

async function killLikeGoPlugin(
  child: ChildProcess,
  exited: Promise<ProviderExit>,
  closeBroker: () => void,
  shutdown: () => Promise<unknown>,
  closeConnection: () => void,
): Promise<KillReport> {
  const started = performance.now();
  const already = child.exitCode !== null || child.signalCode !== null;
  if (!already) {
    closeBroker();
    await shutdown().catch(() => {}); // go-plugin ignores Shutdown's reply
    closeConnection();
    const graceful = await Promise.race([
      exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), killGraceMs).unref()),
    ]);
    if (!graceful) child.kill("SIGKILL");
    const how = await exited;
    return { graceful, ...how, durationMs: performance.now() - started };
  }
  closeConnection();
  const how = await exited;
  return { graceful: true, ...how, durationMs: performance.now() - started };
}

/** The provider's AutoMTLS certificate as PEM; go-plugin's host fails the same way without one. */
function providerCertificatePem(handshake: Handshake): string {
  if (!handshake.serverCertificate)
    throw new Error(
      "the host asked for AutoMTLS, but the provider's handshake line carries no certificate (6th field)",
    );
  try {
    return certificatePemFromDer(handshake.serverCertificate);
  } catch (error) {
    throw new Error(`error parsing server cert: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === "number" && "details" in error;
}
