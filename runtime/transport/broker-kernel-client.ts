/**
 * KernelClient over go-plugin's broker: the kernel serves KernelCallbackService on broker ID 1 and
 * announces the address on the StartStream stream; this client waits for that ConnInfo (as
 * go-plugin's Dial does), dials it (plaintext gRPC, or mutual TLS when the host asked for AutoMTLS)
 * and redials when the host announces a new one.
 */
import type {
  CountTokensRequest,
  CountTokensResult,
  EmitRequest,
  EmitResult,
  LogRequest,
  RunSessionRequest,
  RunSessionResult,
} from "../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { KernelCallbackService } from "../generated/pluggableharness/kernel/v1/kernel_pb.js";
import type { TraceHeaders } from "../telemetry/trace-headers.js";
import type { BrokerConnections } from "./broker-connections.js";
import type { ConnInfo } from "../generated/plugin/grpc_broker_pb.js";
import type { CallControl, ChannelSecurity, ServiceClient } from "./service-client.js";
import type { MutualTls } from "./tls/mutual-tls.js";
import type { KernelClient } from "../service/kernel/kernel-client.js";

/** The kernel's callbacks are served on the fixed broker ID 1 (docs/transport.md#kernel-callbacks). */
export const kernelCallbackBrokerId = 1;

/**
 * grpc-js's client (service-client.ts), and under AutoMTLS its credentials (tls/mutual-tls.ts),
 * loaded by the first callback rather than at start-up: a provider served on node:http2 whose
 * handlers never call the kernel never loads grpc-js.
 */
let serviceClient: Promise<typeof import("./service-client.js")> | undefined;
const loadServiceClient = () => (serviceClient ??= import("./service-client.js"));

/** How the broker dial is secured: plaintext, or mutual TLS with `tls` (built once, at the first dial). */
async function brokerChannel(tls: MutualTls | undefined): Promise<ChannelSecurity> {
  if (!tls) return (await loadServiceClient()).plaintextChannel;
  return (await import("./tls/mutual-tls.js")).mutualTlsChannel(tls);
}

/** Log and Emit are short; a kernel that does not answer them in this time is treated as gone. */
const shortCallTimeoutMs = 30_000;

/** A KernelClient that also lets the transport close its channel on shutdown. */
export interface BrokerKernelClient extends KernelClient {
  /**
   * Resolves once the callbacks in flight (a handler's `ctx.log` lines are sent without being
   * awaited) have been answered, or after `timeoutMs`, whichever comes first: a stop waits for them
   * so the kernel receives a provider's last lines.
   */
  settle(timeoutMs: number): Promise<void>;
  /** Whether callbacks are in flight (what `settle` would wait for). */
  busy(): boolean;
  close(): void;
}

/**
 * Creates the kernel callback client over the broker; nothing is dialed until the first call.
 * `tls`: with AutoMTLS the host serves broker connections with TLS too.
 */
export function createBrokerKernelClient(broker: BrokerConnections, tls?: MutualTls): BrokerKernelClient {
  let current: { info: ConnInfo; client: ServiceClient<typeof KernelCallbackService> } | undefined;
  let channel: Promise<ChannelSecurity> | undefined;
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();

  async function client(signal?: AbortSignal): Promise<ServiceClient<typeof KernelCallbackService>> {
    if (closed) throw new Error("the kernel callback client is closed (the provider is shutting down)");
    const info = await broker.waitFor(kernelCallbackBrokerId, undefined, signal);
    const { grpcTarget, ServiceClient } = await loadServiceClient();
    const security = await (channel ??= brokerChannel(tls));
    if (closed) throw new Error("the kernel callback client is closed (the provider is shutting down)");
    if (current && current.info.address === info.address && current.info.network === info.network)
      return current.client;
    current?.client.close();
    current = {
      info,
      client: new ServiceClient(KernelCallbackService, grpcTarget(info.network, info.address), security),
    };
    return current.client;
  }

  async function call<K extends "log" | "emit" | "runSession" | "countTokens">(
    name: K,
    request: Parameters<KernelClient[K]>[0],
    control: CallControl,
  ): Promise<unknown> {
    const method = KernelCallbackService.method[name];
    const sent = client(control.signal).then((c) => c.unary(method as never, request as never, control));
    inFlight.add(sent);
    // Settled either way, the call leaves the set (the caller sees its failure, not this chain).
    sent.then(
      () => inFlight.delete(sent),
      () => inFlight.delete(sent),
    );
    return sent;
  }

  return {
    async log(request: LogRequest, trace?: TraceHeaders): Promise<void> {
      await call("log", request, { timeoutMs: shortCallTimeoutMs, ...(trace ? { metadata: trace } : {}) });
    },
    async emit(request: EmitRequest, trace?: TraceHeaders): Promise<EmitResult> {
      return (await call("emit", request, {
        timeoutMs: shortCallTimeoutMs,
        ...(trace ? { metadata: trace } : {}),
      })) as EmitResult;
    },
    async runSession(
      request: RunSessionRequest,
      signal?: AbortSignal,
      trace?: TraceHeaders,
    ): Promise<RunSessionResult> {
      return (await call("runSession", request, {
        ...(signal ? { signal } : {}),
        ...(trace ? { metadata: trace } : {}),
      })) as RunSessionResult;
    },
    async countTokens(
      request: CountTokensRequest,
      signal?: AbortSignal,
      trace?: TraceHeaders,
    ): Promise<CountTokensResult> {
      return (await call("countTokens", request, {
        timeoutMs: shortCallTimeoutMs,
        ...(signal ? { signal } : {}),
        ...(trace ? { metadata: trace } : {}),
      })) as CountTokensResult;
    },
    async settle(timeoutMs: number): Promise<void> {
      if (inFlight.size === 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
    busy: () => inFlight.size > 0,
    close(): void {
      closed = true;
      current?.client.close();
      current = undefined;
    },
  };
}
