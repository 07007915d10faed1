/**
 * The interop scenarios run through two hosts: harness-tool/testing's launch() and the real
 * go-plugin host in Go. Both are driven through this one interface, on protobuf-es messages; the
 * Go side only ever sees base64 bytes.
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
import { LogRequestSchema, type LogRequest } from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import { launch, ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { decodeRpcStatus, toolErrorFromStatus } from "../../runtime/transport/rpc-status-details.js";
import type { GoHost, GoResult } from "./go-host.js";

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

/** How an Invoke went, as the host saw it. */
export interface InvokeOutcome {
  readonly events: readonly ToolEvent[];
  readonly code: number;
  readonly cancelled: boolean;
}

/** One provider launched through one host. */
export interface ScenarioHost {
  readonly hostName: "typescript" | "go";
  readonly pid: number;
  readonly network: string;
  readonly address: string;
  readonly appVersion: number;
  ping(): Promise<void>;
  getSchema(): Promise<GetSchemaResponse>;
  configure(config: JsonObject): Promise<ConfigureOutcome>;
  /** Invoke; with `cancelAfter`, the host cancels the stream once that many events arrived. */
  invoke(call: MessageInitShape<typeof ToolCallSchema>, cancelAfter?: number): Promise<InvokeOutcome>;
  /** Starts an Invoke left running; `events(n)` waits until n events arrived (or the stream ended). */
  startInvoke(call: MessageInitShape<typeof ToolCallSchema>): Promise<{ events(count: number): Promise<readonly ToolEvent[]> }>;
  describe(): Promise<DescribeResponse>;
  /** The KernelCallbackService.Log calls recorded on broker ID 1. */
  logCalls(): Promise<readonly LogRequest[]>;
  /** The provider's stderr lines as the host logged them. */
  hostLogs(): Promise<readonly { level: string; message: string }[]>;
  /** The host's Kill(): how long it took and whether the process exited by itself. */
  kill(): Promise<{ ms: number; graceful: boolean }>;
}

/** Through harness-tool/testing. */
export async function launchWithTypeScriptHost(provider: ProviderCommand): Promise<ScenarioHost> {
  const p: LaunchedProvider = await launch(provider.command, { args: provider.args, cwd: provider.cwd, handshakeTimeoutMs: 30_000 });
  return {
    hostName: "typescript",
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
    invoke: async (call, cancelAfter) => {
      const running = p.invoke(call);
      if (cancelAfter !== undefined) {
        await running.waitForEvents(cancelAfter);
        running.cancel();
      }
      const outcome = await running.done;
      return { events: outcome.events, code: outcome.code, cancelled: outcome.cancelled };
    },
    startInvoke: async (call) => {
      const running = p.invoke(call);
      return { events: (count) => running.waitForEvents(count) };
    },
    describe: () => p.describe(),
    logCalls: async () => p.kernel.calls.log,
    hostLogs: async () => p.stderr.map((e) => ({ level: e.level, message: e.message })),
    kill: async () => {
      const report = await p.kill();
      return { ms: report.durationMs, graceful: report.graceful };
    },
  };
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const unb64 = (text: unknown) => new Uint8Array(Buffer.from(String(text), "base64"));
const toolService = "/pluggableharness.tool.v1.ToolService";

/** Through the real go-plugin host (one provider per Go host process). */
export async function launchWithGoHost(host: GoHost, provider: ProviderCommand): Promise<ScenarioHost> {
  const launched = await host.request({ op: "launch", command: provider.command, args: provider.args, dir: provider.cwd });
  const unary = (method: string, request: Uint8Array): Promise<GoResult> => host.request({ op: "unary", method: `${toolService}/${method}`, request: b64(request) });
  const ok = (result: GoResult, what: string): Uint8Array => {
    if (result.code !== 0) throw new Error(`${what} failed through the Go host: ${String(result.code)} ${String(result.message)}`);
    return unb64(result.response);
  };
  return {
    hostName: "go",
    pid: Number(launched.pid),
    network: String(launched.network),
    address: String(launched.address),
    appVersion: Number(launched.version),
    ping: async () => {
      await host.request({ op: "ping" });
    },
    getSchema: async () => fromBinary(GetSchemaResponseSchema, ok(await unary("GetSchema", toBinary(GetSchemaRequestSchema, create(GetSchemaRequestSchema))), "GetSchema")),
    configure: async (config) => {
      const result = await unary("Configure", toBinary(ConfigureRequestSchema, create(ConfigureRequestSchema, { config })));
      if (result.code === 0) return { code: 0, message: "" };
      // What grpc-go's status.FromError decoded from the grpc-status-details-bin trailer.
      const toolError = result.status ? toolErrorFromStatus(decodeRpcStatus(unb64(result.status))) : undefined;
      return { code: Number(result.code), message: String(result.message), ...(toolError ? { toolError } : {}) };
    },
    invoke: async (call, cancelAfter) => {
      const request = toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call }));
      const result = await host.request({ op: "invoke", request: b64(request), ...(cancelAfter !== undefined ? { cancelAfter } : {}) });
      const events = (result.events as string[]).map((e) => fromBinary(InvokeResponseSchema, unb64(e)).event as ToolEvent);
      return { events, code: result.cancelled ? 1 : Number(result.code ?? 0), cancelled: result.cancelled === true };
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
    describe: async () => fromBinary(DescribeResponseSchema, ok(await unary("Describe", toBinary(DescribeRequestSchema, create(DescribeRequestSchema))), "Describe")),
    logCalls: async () => {
      const result = await host.request({ op: "callbacks" });
      return (result.calls as { method: string; request: string }[])
        .filter((c) => c.method === "/pluggableharness.kernel.v1.KernelCallbackService/Log")
        .map((c) => fromBinary(LogRequestSchema, unb64(c.request)));
    },
    hostLogs: async () => {
      // hclog JSON; the provider's lines are logged under the module named after the binary.
      const result = await host.request({ op: "logs" });
      return String(result.logs)
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry["@module"] !== "host")
        .map((entry) => ({ level: String(entry["@level"]), message: String(entry["@message"]) }));
    },
    kill: async () => {
      const result = await host.request({ op: "kill" });
      return { ms: Number(result.ms), graceful: result.exited === true && Number(result.ms) < 2000 };
    },
  };
}
