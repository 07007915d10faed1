/**
 * createToolService: the ToolService semantics of one provider behind the ToolServiceCore door.
 * Checks the provider when created (before the handshake), builds GetSchema once, and runs
 * Configure, Invoke, Preview, Render, Describe and shutdown by the protocol's rules. Knows
 * nothing of gRPC or go-plugin; the decisions are documented in docs/runtime.md.
 */
import { create } from "@bufbuild/protobuf";
import { Category } from "../../generated/pluggableharness/common/v1/common_pb.js";
import {
  ConfigureResponseSchema,
  DescribeResponseSchema,
  PreviewResponseSchema,
  RenderResponseSchema,
  type ConfigureRequest,
  type InvokeRequest,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { GrpcCode, RpcStatusError } from "../../errors/rpc-status-error.js";
import type { KernelClient } from "../kernel/kernel-client.js";
import type { ProviderDefinition } from "../../provider/provider-definition.js";
import { traceInvoke, traceUnary } from "../../telemetry/call-spans.js";
import type { TraceHeaders } from "../../telemetry/trace-headers.js";
import { checkProvider, ProviderDefinitionError } from "./check-provider.js";
import { tooDeep, tooDeepError } from "./argument-depth.js";
import { collectSecrets } from "../../redaction/collect-secrets.js";
import { DeadlineQueue } from "./deadline-queue.js";
import { ConcurrencyGate } from "./concurrency-gate.js";
import { acceptConfig, defaultConfig, defaultConfigureHookTimeoutMs, runConfigureHook } from "./configure-call.js";
import { failureLog } from "./failure-log.js";
import { buildGetSchemaResponse } from "./get-schema-response.js";
import { admitInvoke } from "./invoke-admission.js";
import { runPreview } from "./preview-call.js";
import { installProcessGuards } from "../process/process-guards.js";
import { PROTOCOL_VERSION } from "./protocol-version.js";
import { runRender } from "./render-call.js";
import { SecretExits } from "./secret-exits.js";
import type { AcceptedConfig, ServiceRuntime, ToolEntry } from "./service-runtime.js";
import { ChildRegistry } from "../process/spawn-child.js";
import type { InvokeSink, ToolServiceCore } from "./tool-service-core.js";
import { stackOf } from "../../errors/classify-error.js";

/** Options of createToolService. */
export interface ToolServiceOptions {
  /**
   * The kernel's callbacks. The transport connects to the broker after the handshake, so pass a
   * getter that returns undefined until then (or the client itself when it is already there).
   */
  readonly kernel?: KernelClient | (() => KernelClient | undefined);
  /** One diagnostic line, without the newline. Default: process.stderr. Never stdout. */
  readonly stderr?: (line: string) => void;
  /** How long a cancelled, timed-out or shut-down handler may still take to settle. Default 1000 ms. */
  readonly settleGraceMs?: number;
  /** Between SIGTERM and SIGKILL of a child process. Default 500 ms. */
  readonly killGraceMs?: number;
  /**
   * Report unhandled rejections and uncaught exceptions on stderr instead of letting them end the
   * process (serve() sets this). Removed by shutdown(). Default false.
   */
  readonly guardProcess?: boolean;
  /**
   * How long the provider's configure hook may take when the host sets no deadline on Configure.
   * Default 30 000 ms (docs/runtime.md#the-configure-hook).
   */
  readonly configureHookTimeoutMs?: number;
}

/** The service, with what the transport may need beyond the door. */
export interface ToolService extends ToolServiceCore {
  /**
   * Text with the secrets accepted so far redacted: the transport passes the lines it writes to
   * stderr itself through this (serve() does), so they leave by the same stderr exit.
   */
  readonly redactText: (text: string) => string;
  /** How many calls are in flight (Invoke, and DispatchHook when the provider serves hooks). */
  readonly inFlight: () => number;
  /** Whether a shutdown now would wait for a call in flight or a child still running. */
  readonly busy: () => boolean;
  /**
   * What the provider's HookSubscriberService shares with this service (runtime/service/hooks):
   * the accepted config, the kernel connection, the in-flight calls and the secret exits.
   */
  readonly serviceScope: { readonly rt: ServiceRuntime; readonly exits: SecretExits };
}

function defaultStderr(line: string): void {
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // EPIPE: the host is gone.
  }
}

function entriesOf(provider: ProviderDefinition<unknown>): Map<string, ToolEntry> {
  const tools = new Map<string, ToolEntry>();
  for (const implementation of provider.tools) {
    const d = implementation.declaration;
    tools.set(d.name, {
      implementation,
      name: d.name,
      streaming: d.streaming || d.processBacked,
      processBacked: d.processBacked,
      timeoutMs: d.defaultTimeoutMs,
    });
  }
  return tools;
}

/** Throws a ProviderDefinitionError listing every problem of the provider; its warnings go to `stderr`. */
function checkOrThrow(provider: ProviderDefinition<unknown>, stderr: (line: string) => void): void {
  const check = checkProvider(provider);
  if (check.errors.length > 0) throw new ProviderDefinitionError(String(provider.name), check.errors);
  for (const warning of check.warnings) stderr(`[WARN] harness-tool: ${warning}`);
}

/** Describe's answer, the same for every call: the provider as a producer of the tool category. */
function describeResponseOf(provider: ProviderDefinition<unknown>) {
  return create(DescribeResponseSchema, {
    producer: {
      name: provider.name,
      version: provider.version,
      source: provider.source,
      category: Category.TOOL,
      protocolVersion: PROTOCOL_VERSION,
    },
  });
}

/** The config in force, and how many Configures have started and which of them was applied last. */
interface ConfigSequence {
  accepted: AcceptedConfig | undefined;
  started: number;
  applied: number;
}

/**
 * Runs one Configure: decides its config, awaits its hook, then puts it in force. Of overlapping
 * Configures, the latest started among those accepted is in force, whichever hook finishes first.
 */
async function configureInOrder(
  configs: ConfigSequence,
  decide: () => AcceptedConfig,
  hook: (config: AcceptedConfig) => Promise<void>,
): Promise<void> {
  const generation = ++configs.started;
  const next = decide();
  await hook(next);
  if (generation > configs.applied) {
    configs.accepted = next;
    configs.applied = generation;
  }
}

/**
 * The Configure rpc: each call's config decided, its hook run within the call's deadline (else
 * `hookTimeoutMs`), then put in force in the order the calls started.
 */
function configureRpc(
  rt: ServiceRuntime,
  exits: SecretExits,
  configs: ConfigSequence,
  hookTimeoutMs: number,
  logFailure: (message: string, stack: string) => void,
): ToolServiceCore["configure"] {
  // Configure's span never carries the config: it holds secrets.
  return (request, trace, deadline) =>
    traceUnary("Configure", trace, () =>
      exits.unary(ConfigureResponseSchema, { context: "Configure failed", log: logFailure }, async () => {
        const next = () => configure(rt, exits, rt.provider, request, logFailure);
        await configureInOrder(configs, next, (config) =>
          runConfigureHook(rt.provider, config, { deadline, fallbackMs: hookTimeoutMs, log: logFailure }),
        );
        return create(ConfigureResponseSchema, {});
      }),
    );
}

/**
 * Creates the ToolService of a provider. Throws a ProviderDefinitionError listing every problem
 * (`tool: message (fix) [rule]`) when the provider breaks an invariant; warnings go to stderr.
 */
export function createToolService<Config>(
  provider: ProviderDefinition<Config>,
  options: ToolServiceOptions = {},
): ToolService {
  const erased = provider as ProviderDefinition<unknown>;
  const stderr = options.stderr ?? defaultStderr;
  checkOrThrow(erased, stderr);

  const schema = buildGetSchemaResponse(erased);
  const describeResponse = describeResponseOf(erased);
  const kernelOption = options.kernel;
  const kernel = typeof kernelOption === "function" ? kernelOption : () => kernelOption;
  // Every byte the service sends leaves through these (secret-exits.ts).
  const exits = new SecretExits();
  // docs/runtime.md#invoke-before-configure — a config that decodes from {} is in force from the start.
  const configs: ConfigSequence = { accepted: defaultConfig(erased), started: 0, applied: 0 };
  let shuttingDown = false;
  let removeGuards: (() => void) | undefined;

  const rt: ServiceRuntime = {
    provider: erased,
    tools: entriesOf(erased),
    timings: { settleGraceMs: options.settleGraceMs ?? 1000, killGraceMs: options.killGraceMs ?? 500 },
    gate: new ConcurrencyGate(),
    deadlines: new DeadlineQueue(),
    children: new ChildRegistry(),
    calls: new Set(),
    stderr: exits.stderr(stderr),
    kernel: exits.kernel(kernel),
    accepted: () => configs.accepted,
    shuttingDown: () => shuttingDown,
  };
  if (options.guardProcess) removeGuards = installProcessGuards(rt.stderr);
  // Where a failure's stack goes (the kernel's log): one function for every unary call and Configure.
  const logFailure = failureLog(rt.stderr);

  return {
    redactText: (text) => exits.text(text),
    inFlight: () => rt.calls.size,
    busy: () => rt.calls.size > 0 || rt.children.size > 0,
    serviceScope: { rt, exits },

    getSchema: (trace) => traceUnary("GetSchema", trace, () => schema),

    configure: configureRpc(
      rt,
      exits,
      configs,
      options.configureHookTimeoutMs ?? defaultConfigureHookTimeoutMs,
      logFailure,
    ),

    async invoke(request: InvokeRequest, transportSink: InvokeSink, trace?: TraceHeaders) {
      const sink = exits.invoke(transportSink);
      try {
        // The span watches the events before the exit redacts them (it reads only their kind and category).
        const declaration = rt.tools.get(request.call?.toolName ?? "")?.implementation.declaration;
        await traceInvoke(trace, request, declaration, sink, (traced, call) => admitInvoke(rt, request, traced, call));
      } catch (error) {
        // InvokeInFlight never rejects; this is the runtime's own bug, reported and survived.
        rt.stderr(`[ERROR] harness-tool: Invoke failed inside the runtime: ${stackOf(error)}`);
      } finally {
        sink.end();
      }
    },

    preview: (request, trace) =>
      traceUnary(
        "Preview",
        trace,
        () =>
          exits.unary(PreviewResponseSchema, { context: "Preview failed", log: logFailure }, () =>
            runPreview(rt, request),
          ),
        rt.tools.get(request.call?.toolName ?? "")?.implementation.declaration,
        request.call?.id,
      ),
    render: (request, trace) =>
      traceUnary("Render", trace, () =>
        exits.unary(RenderResponseSchema, { context: "Render failed", log: logFailure }, () => runRender(rt, request)),
      ),
    describe: (trace) => traceUnary("Describe", trace, () => describeResponse),

    async shutdown(graceMs) {
      shuttingDown = true;
      await settleForShutdown(rt, graceMs);
      removeGuards?.();
      removeGuards = undefined;
    },
  };
}

/**
 * Configure (docs/runtime.md#configure): refuses a config too deep to decode, learns every
 * sensitive value before deciding (a secret is one from the moment it arrives, even in a rejected
 * request), and returns the config now in force for calls that start later (the old secrets stay
 * redacted: docs/runtime.md#configure-twice).
 */
function configure(
  rt: ServiceRuntime,
  exits: SecretExits,
  provider: ProviderDefinition<unknown>,
  request: ConfigureRequest,
  logFailure: (message: string, stack: string) => void,
): AcceptedConfig {
  const deep = tooDeep(request);
  if (deep) {
    const error = tooDeepError("the configuration's values", deep);
    throw new RpcStatusError(GrpcCode.INVALID_ARGUMENT, error.message, error);
  }
  const raw = request.config ?? {};
  exits.learn(collectSecrets(provider.config.attributes, raw));
  const outcome = acceptConfig(provider, raw, logFailure);
  exits.learn(outcome.secrets);
  for (const warning of outcome.warnings) rt.stderr(warning);
  return outcome.accepted;
}

/** Stops every call in flight and the live children, waiting at most `graceMs` for them to end. */
async function settleForShutdown(rt: ServiceRuntime, graceMs: number): Promise<void> {
  const calls = [...rt.calls];
  const settle = Math.max(0, Math.min(graceMs, rt.timings.settleGraceMs));
  for (const call of calls) call.stopForShutdown(settle);
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([
    Promise.all([...calls.map((c) => c.ended), rt.children.killAll(Math.min(rt.timings.killGraceMs, graceMs))]),
    graceOver,
  ]);
  clearTimeout(timer);
}
