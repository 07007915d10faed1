/**
 * The interop scenarios run through two hosts: harness-tool/testing's launch() and the real
 * go-plugin v1.8.0 host in Go (with the kernel's client configuration, or with AutoMTLS). Both are
 * driven through this one interface, on protobuf-es messages; the Go side only ever sees base64
 * bytes.
 */
import { create, fromBinary, toBinary, type JsonObject, type MessageInitShape } from "@bufbuild/protobuf";
import {
  ConfigureRequestSchema,
  DescribeRequestSchema,
  DescribeResponseSchema,
  GetSchemaRequestSchema,
  GetSchemaResponseSchema,
  InvokeRequestSchema,
  InvokeResponseSchema,
  type DescribeResponse,
  type GetSchemaResponse,
  type ToolCallSchema,
  type ToolError,
  type ToolEvent,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import {
  CountTokensRequestSchema,
  CountTokensResultSchema,
  EmitRequestSchema,
  EmitResultSchema,
  LogRequestSchema,
  RunSessionRequestSchema,
  RunSessionResultSchema,
  type CountTokensRequest,
  type EmitRequest,
  type LogRequest,
  type RunSessionRequest,
} from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import { launch, ProviderCallError, type LaunchedProvider, type OutputDigest } from "harness-tool/testing";
import { toolErrorFromStatus } from "../../../runtime/errors/rpc-status-details.js";
import { StatusSchema } from "harness-tool/generated/google/rpc/status_pb.js";
import { b64, providerLogLines, type GoHost, type GoResult } from "./go-host.js";

/** A provider to launch: the command and arguments, as the kernel would exec them. */
export interface ProviderCommand {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** A failed or accepted Configure. */
export interface ConfigureOutcome {
  readonly code: number;
  readonly message: string;
  readonly toolError?: ToolError;
}

/** How a host launches: the kernel's configuration, or go-plugin's AutoMTLS on top of it. */
export interface LaunchMode {
  readonly autoMTLS?: boolean;
  /** Operator extras added to the provider's environment (PLUGIN_UNIX_SOCKET_DIR, ...). */
  readonly env?: { readonly [name: string]: string };
}

/** What the kernel answers to the callbacks that return something, the same for both hosts. */
export const kernelReplies = {
  emit: { id: "event-7", sequence: 42n },
  runSession: { sessionId: "sub-session-1", totalCostUsd: 0.25 },
  countTokens: { count: 1234n, exact: true },
} as const;

/** Every KernelCallbackService call a provider made, decoded. */
export interface KernelCallbackCalls {
  readonly log: readonly LogRequest[];
  readonly emit: readonly EmitRequest[];
  readonly runSession: readonly RunSessionRequest[];
  readonly countTokens: readonly CountTokensRequest[];
}

/** One provider stderr line as the host logged it. */
export interface HostLogLine {
  readonly level: string;
  readonly message: string;
  /** The line's other keys, as host log fields. */
  readonly fields: { readonly [key: string]: unknown };
}

/** How an Invoke went, as the host saw it. */
export interface InvokeOutcome {
  /** The events in order; without the output chunks when the call was read with `digest`. */
  readonly events: readonly ToolEvent[];
  readonly code: number;
  readonly cancelled: boolean;
  /** With `digest`: what the output chunks added up to. */
  readonly digest?: OutputDigest;
}

/** How a host runs one Invoke. */
export interface InvokeControl {
  /** Cancel the stream once this many events (output chunks included) arrived. */
  readonly cancelAfter?: number;
  /** Go host only: a gRPC deadline, as a kernel-enforced timeout. */
  readonly deadlineMs?: number;
  /** Read like a slow kernel: pause this long after every event. */
  readonly recvDelayMs?: number;
  /** Keep only bytes and SHA-256 per stream of the output chunks, for streams of gigabytes. */
  readonly digest?: boolean;
}

/** One provider launched through one host. */
export interface ScenarioHost {
  readonly hostName: "typescript" | "go";
  readonly autoMTLS: boolean;
  readonly pid: number;
  readonly network: string;
  readonly address: string;
  readonly appVersion: number;
  ping(): Promise<void>;
  getSchema(): Promise<GetSchemaResponse>;
  configure(config: JsonObject): Promise<ConfigureOutcome>;
  /** Invoke, read as `control` says. */
  invoke(call: MessageInitShape<typeof ToolCallSchema>, control?: InvokeControl): Promise<InvokeOutcome>;
  /** Starts an Invoke left running; `events(n)` waits until n events arrived (or the stream ended). */
  startInvoke(
    call: MessageInitShape<typeof ToolCallSchema>,
  ): Promise<{ events(count: number): Promise<readonly ToolEvent[]> }>;
  describe(): Promise<DescribeResponse>;
  /** Every KernelCallbackService call recorded on broker ID 1. */
  callbackCalls(): Promise<KernelCallbackCalls>;
  /** The provider's stderr lines as the host logged them. */
  hostLogs(): Promise<readonly HostLogLine[]>;
  /** The host's Kill(): how long it took and whether the process exited by itself. */
  kill(): Promise<{ ms: number; graceful: boolean }>;
}

/** Through harness-tool/testing. */
export async function launchWithTypeScriptHost(
  provider: ProviderCommand,
  mode: LaunchMode = {},
): Promise<ScenarioHost> {
  const p: LaunchedProvider = await launch(provider.command, {
    args: provider.args,
    cwd: provider.cwd,
    handshakeTimeoutMs: 30_000,
    ...(mode.env ? { env: mode.env } : {}),
    ...(mode.autoMTLS ? { autoMTLS: true } : {}),
    kernel: {
      emit: () => kernelReplies.emit,
      runSession: () => kernelReplies.runSession,
      countTokens: () => kernelReplies.countTokens,
    },
  });
  return {
    hostName: "typescript",
    autoMTLS: mode.autoMTLS === true,
    pid: p.pid,
    network: p.handshake.network,
    address: p.handshake.address,
    appVersion: p.handshake.appVersion,
    ping: async () => {
      if ((await p.ping()) !== 1) throw new Error("not SERVING");
    },
    getSchema: () => p.getSchema(),
    configure: async (config) => {
      try {
        await p.configure(config);
        return { code: 0, message: "" };
      } catch (error) {
        if (!(error instanceof ProviderCallError)) throw error;
        return { code: error.code, message: error.details, ...(error.toolError ? { toolError: error.toolError } : {}) };
      }
    },
    invoke: async (call, control = {}) => {
      if (control.deadlineMs !== undefined) throw new Error("the TypeScript host's invoke() sets no deadline");
      const running = p.invoke(call, {
        readDelayMs: control.recvDelayMs ?? 0,
        keepOutputChunks: control.digest !== true,
      });
      if (control.cancelAfter !== undefined) {
        await running.waitForEvents(control.cancelAfter);
        running.cancel();
      }
      const outcome = await running.done;
      return {
        events: outcome.events,
        code: outcome.code,
        cancelled: outcome.cancelled,
        ...(control.digest ? { digest: outcome.outputDigest } : {}),
      };
    },
    startInvoke: async (call) => {
      const running = p.invoke(call);
      return { events: (count) => running.waitForEvents(count) };
    },
    describe: () => p.describe(),
    callbackCalls: async () => p.kernel.calls,
    hostLogs: async () => p.stderr.map((e) => ({ level: e.level, message: e.message, fields: e.fields })),
    kill: async () => {
      const report = await p.kill();
      return { ms: report.durationMs, graceful: report.graceful };
    },
  };
}

const unb64 = (text: unknown) => new Uint8Array(Buffer.from(String(text), "base64"));
const toolService = "/pluggableharness.tool.v1.ToolService";
const kernelService = "/pluggableharness.kernel.v1.KernelCallbackService";

/** The callbacks the Go host's recording kernel received, decoded. */
async function goCallbacks(host: GoHost): Promise<KernelCallbackCalls> {
  const calls = (await host.request({ op: "callbacks" })).calls as { method: string; request: string }[];
  const of = (method: string) =>
    calls.filter((c) => c.method === `${kernelService}/${method}`).map((c) => unb64(c.request));
  return {
    log: of("Log").map((b) => fromBinary(LogRequestSchema, b)),
    emit: of("Emit").map((b) => fromBinary(EmitRequestSchema, b)),
    runSession: of("RunSession").map((b) => fromBinary(RunSessionRequestSchema, b)),
    countTokens: of("CountTokens").map((b) => fromBinary(CountTokensRequestSchema, b)),
  };
}

/** Through the real go-plugin host (one provider per Go host process). */
export async function launchWithGoHost(
  host: GoHost,
  provider: ProviderCommand,
  mode: LaunchMode = {},
): Promise<ScenarioHost> {
  const replies = {
    [`${kernelService}/Emit`]: b64(toBinary(EmitResultSchema, create(EmitResultSchema, kernelReplies.emit))),
    [`${kernelService}/RunSession`]: b64(
      toBinary(RunSessionResultSchema, create(RunSessionResultSchema, kernelReplies.runSession)),
    ),
    [`${kernelService}/CountTokens`]: b64(
      toBinary(CountTokensResultSchema, create(CountTokensResultSchema, kernelReplies.countTokens)),
    ),
  };
  const launched = await host.request({
    op: "launch",
    command: provider.command,
    args: provider.args,
    dir: provider.cwd,
    replies,
    autoMTLS: mode.autoMTLS === true,
    ...(mode.env ? { env: mode.env } : {}),
  });
  const unary = (method: string, request: Uint8Array): Promise<GoResult> =>
    host.request({ op: "unary", method: `${toolService}/${method}`, request: b64(request) });
  const ok = (result: GoResult, what: string): Uint8Array => {
    if (result.code !== 0)
      throw new Error(`${what} failed through the Go host: ${String(result.code)} ${String(result.message)}`);
    return unb64(result.response);
  };
  return {
    hostName: "go",
    autoMTLS: launched.autoMTLS === true,
    pid: Number(launched.pid),
    network: String(launched.network),
    address: String(launched.address),
    appVersion: Number(launched.version),
    ping: async () => {
      await host.request({ op: "ping" });
    },
    getSchema: async () =>
      fromBinary(
        GetSchemaResponseSchema,
        ok(await unary("GetSchema", toBinary(GetSchemaRequestSchema, create(GetSchemaRequestSchema))), "GetSchema"),
      ),
    configure: async (config) => {
      const result = await unary(
        "Configure",
        toBinary(ConfigureRequestSchema, create(ConfigureRequestSchema, { config })),
      );
      if (result.code === 0) return { code: 0, message: "" };
      // What grpc-go's status.FromError decoded from the grpc-status-details-bin trailer.
      const toolError = result.status ? toolErrorFromStatus(fromBinary(StatusSchema, unb64(result.status))) : undefined;
      return { code: Number(result.code), message: String(result.message), ...(toolError ? { toolError } : {}) };
    },
    invoke: async (call, control = {}) => {
      const request = toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call }));
      const result = await host.request({ op: "invoke", request: b64(request), ...control });
      const events = (result.events as string[]).map(
        (e) => fromBinary(InvokeResponseSchema, unb64(e)).event as ToolEvent,
      );
      const outcome = {
        events,
        code: result.cancelled ? 1 : Number(result.code ?? 0),
        cancelled: result.cancelled === true,
      };
      return control.digest ? { ...outcome, digest: result.digest as OutputDigest } : outcome;
    },
    startInvoke: async (call) => {
      const request = toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call }));
      await host.request({ op: "invoke", background: true, request: b64(request) });
      return {
        events: async (count) => {
          const result = await host.request({ op: "events", count });
          return (result.events as string[]).map((e) => fromBinary(InvokeResponseSchema, unb64(e)).event as ToolEvent);
        },
      };
    },
    describe: async () =>
      fromBinary(
        DescribeResponseSchema,
        ok(await unary("Describe", toBinary(DescribeRequestSchema, create(DescribeRequestSchema))), "Describe"),
      ),
    callbackCalls: () => goCallbacks(host),
    hostLogs: async () => providerLogLines(await host.logEntries()),
    kill: async () => {
      const result = await host.request({ op: "kill" });
      // go-plugin logs this just before it SIGKILLs a plugin that outlived the grace period.
      const forced = (await host.logEntries()).some((e) => e.message === "plugin failed to exit gracefully");
      return { ms: Number(result.ms), graceful: result.exited === true && !forced };
    },
  };
}
