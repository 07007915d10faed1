/**
 * One provider under inspection: launched through the go-plugin handshake as the kernel launches it,
 * configured, called, and watched (stderr log lines, kernel callbacks). Everything it tells the page
 * leaves through `#publish` or `snapshot()`, both of which pass the secret keeper: one exit, so a new
 * kind of message cannot forget redaction.
 */
import { randomUUID } from "node:crypto";
import { create, fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { status as grpcStatus } from "@grpc/grpc-js";
import { Category } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import {
  CountTokensResultSchema,
  EmitRequestSchema,
  EmitResultSchema,
  LogRequestSchema,
  RunSessionRequestSchema,
  RunSessionResultSchema,
  CountTokensRequestSchema,
  type EmitRequest,
} from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import { RenderTreeSchema, type RenderTree } from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import { OutputStream, type ToolEvent, type ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { ConfigAttributeDeclaration, JsonSchema } from "harness-tool";
import { jsonSchemaFromWire, toolSchemaFlagValues, validateValue } from "harness-tool/schema";
import { HookDispatchError, ProviderCallError, type InvokeCall, type LaunchedProvider, type LaunchOptions } from "harness-tool/testing";
import type { HookPoint } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import type { DispatchHookRequest } from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { HookModeName } from "harness-tool";
import { launchProvider } from "../provider/launch-provider.js";
import type { ProviderCommand } from "../provider/provider-target.js";
import { categoryName, concurrencyText, kindName, riskName, timeoutText } from "../terminal/wire-names.js";
import type {
  CallEndView,
  CallEventView,
  CallView,
  CallbackView,
  CannedRepliesView,
  ConfigStateView,
  ConfigureAnswer,
  ConfigureRequestBody,
  HookCallView,
  HookLogView,
  HookPointView,
  HookRequestBody,
  IdentityView,
  InspectorSnapshot,
  InvokeRequestBody,
  Json,
  JsonSchemaView,
  LogLineView,
  RestartAnswerView,
  StreamMessage,
  ToolView,
  TreeAnswer,
} from "./page-protocol.js";
import { hookAnswerView, hookFailureView, hookLogView, hookPointOfLogger, hookPointViews, hookRequestOf, HookRequestProblem } from "./hook-firing.js";
import { OutputBatcher } from "./output-batcher.js";
import { configAttributesFromWire, configAttributeViews, maskConfig, SecretKeeper, secretsSet } from "./secret-masking.js";

/** A request the inspector refuses before it reaches the provider (bad JSON, unknown call id...). */
export class InspectRequestError extends Error {
  override readonly name = "InspectRequestError";
}

/** Options of InspectSession.start. */
export interface InspectSessionOptions {
  /** The Configure struct sent at start-up; default `{}`. */
  readonly config?: JsonObject;
  /** CallContext.working_directory of calls that name none. */
  readonly workingDirectory: string;
  /** How often the stderr and Log callback records are looked at; default 100 ms. */
  readonly pollMs?: number;
  /**
   * Told, redacted, when the provider exits by itself or is restarted (the terminal says so):
   * "the provider exited with code 3 ...".
   */
  readonly onProviderChange?: (line: string) => void;
  /** Added to the first launch (the command's deadline: the spawned pid, the stderr lines, the handshake bound). */
  readonly launchOptions?: Pick<LaunchOptions, "onSpawn" | "onStderrLine" | "handshakeTimeoutMs">;
  /** The longest any call may take (`--timeout`): unary calls get at most their usual bound, and an Invoke still running then is cancelled. */
  readonly callTimeoutMs?: number;
  /** Told what the start does next ("GetSchema", "Configure"): the command's deadline names it. */
  readonly onStage?: (stage: string) => void;
}

/** The arguments a Preview probe sends: no tool has this property, so a validating provider refuses them unrun. */
const previewProbeArguments = { "harness-tool inspect: does this tool have a Preview?": true };

/** Calls kept in the history; older ones are dropped. */
export const historyLimit = 100;
/** Output text kept (and shown) per call; the rest is counted, not kept. */
export const outputLimitBytes = 1024 * 1024;
/** Output chunks arriving within this many milliseconds reach the page as one event. */
export const outputBatchMs = 25;
/** Log lines and callbacks kept. */
const recordLimit = 2000;
/** Log lines kept per hook call. */
const hookLogLimit = 200;
/** A hook handler's Log line that arrives this long after its answer still belongs to it (an un-awaited `ctx.log`). */
const hookLateLogMs = 2000;

/** The kernel's answers until the page changes them. */
export const defaultReplies: CannedRepliesView = {
  emit: {},
  runSession: {
    sessionId: "inspect-sub-session-1",
    status: "SESSION_STATUS_COMPLETED",
    finalMessage: { role: "ROLE_ASSISTANT", content: [{ text: { text: "A canned answer from harness-tool inspect." } }] },
  },
  countTokens: { count: "128", exact: false },
};

interface RunningCall {
  readonly view: CallView & { events: CallEventView[]; end?: CallEndView };
  /** The RPC while it runs; dropped at its end, with every event the host client kept for it. */
  rpc: InvokeCall | undefined;
  outputBytes: number;
  droppedBytes: number;
}

interface FiredHook {
  readonly view: HookCallView & { logs: HookLogView[]; answer?: HookCallView["answer"]; durationMs?: number };
  /** Aborts the RPC while it runs, as the kernel cancels a hook call. */
  controller: AbortController | undefined;
  /** performance.now() at its answer. */
  endedAt?: number;
}

function statusName(code: number): string {
  return (grpcStatus as unknown as Record<number, string>)[code] ?? `status ${code}`;
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How a provider process ended, with the last warning or error it logged (the likely reason). */
function exitText(how: { exitCode: number | null; signal: string | null }, stderr: LaunchedProvider["stderr"]): string {
  const ended = how.signal ? `the provider was ended by ${how.signal}` : `the provider exited with code ${how.exitCode}`;
  const last = [...stderr].reverse().find((line) => line.level === "error" || line.level === "warn");
  return last ? `${ended} (last ${last.level}: ${last.message})` : ended;
}

/** True when `launched` has exited, or exits within `ms`. */
async function exitsWithin(launched: LaunchedProvider, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const exited = await Promise.race([launched.exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return exited;
}

/** GetSchema and Describe of a launched provider, as the session keeps them. */
async function loadProvider(provider: ProviderCommand, launched: LaunchedProvider) {
  const schema = await launched.getSchema({ timeoutMs: 10_000 });
  const described = await launched.describe({ timeoutMs: 10_000 }).catch(() => undefined);
  const producer = described?.producer;
  const identity: IdentityView = {
    name: producer?.name ?? "(Describe failed)",
    version: producer?.version ?? "",
    source: producer?.source ?? "",
    category: producer ? (Category[producer.category] ?? String(producer.category)).replace(/^CATEGORY_/, "").toLowerCase() : "",
    protocolVersion: producer?.protocolVersion ?? 0,
    command: [provider.command, ...provider.args].join(" "),
    executable: provider.command,
    args: provider.args,
    pid: launched.pid,
  };
  return {
    identity,
    tools: schema.tools,
    attributes: configAttributesFromWire(schema.configSchema?.attributes ?? []),
    hookPoints: schema.supportedHookPoints as readonly HookPoint[],
  };
}

function toolView(tool: ToolSchema, preview?: boolean): ToolView {
  return {
    name: tool.name,
    description: tool.description,
    kind: kindName(tool.kind),
    risk: riskName(tool.risk),
    ...toolSchemaFlagValues(tool),
    concurrency: concurrencyText(tool),
    timeout: timeoutText(tool),
    inputSchema: (tool.inputSchema ? jsonSchemaFromWire(tool.inputSchema) : {}) as JsonSchemaView,
    outputSchema: (tool.outputSchema ? jsonSchemaFromWire(tool.outputSchema) : {}) as JsonSchemaView,
    ...(preview !== undefined ? { preview } : {}),
  };
}

/**
 * Copies the current value of the sensitive attribute at `path` (names through object attributes)
 * into `next`, creating the objects on the way; false when `path` names no sensitive attribute.
 */
function keepSecret(attributes: readonly ConfigAttributeDeclaration[], current: JsonObject | undefined, next: JsonObject, path: readonly string[]): boolean {
  const [name, ...rest] = path;
  const attribute = attributes.find((a) => a.name === name);
  if (!attribute || name === undefined) return false;
  if (rest.length === 0) {
    if (!attribute.sensitive) return false;
    if (current && Object.hasOwn(current, name)) next[name] = current[name] as JsonValue;
    return true;
  }
  if (attribute.type !== "object" || !attribute.objectAttributes) return false;
  const inner = current?.[name];
  const target = isJsonObject(next[name]) ? (next[name] as JsonObject) : (next[name] = {});
  return keepSecret(attribute.objectAttributes, isJsonObject(inner) ? inner : undefined, target, rest);
}

/** A failed unary call as the page shows it. */
function failureAnswer(error: unknown): TreeAnswer {
  if (error instanceof ProviderCallError) {
    const te = error.toolError;
    return {
      ok: false,
      status: statusName(error.code),
      message: te?.message || error.details,
      ...(te ? { category: categoryName(te.category) } : {}),
      ...(te?.details ? { details: te.details as Json } : {}),
    };
  }
  return { ok: false, status: "UNKNOWN", message: error instanceof Error ? error.message : String(error) };
}

/** Emit's payload as text when it is UTF-8, else base64; the page shows and can Render either. */
function emitRequestJson(request: EmitRequest): Json {
  const json = toJson(EmitRequestSchema, request) as { [key: string]: Json };
  try {
    json["payloadText"] = new TextDecoder("utf-8", { fatal: true }).decode(request.payload);
  } catch {
    // binary: the base64 `payload` stays the only form
  }
  return json;
}

/** What the page shows for a ToolEvent other than output (output is batched and redacted apart). */
function callEventView(event: ToolEvent, schema: ToolSchema | undefined): CallEventView | undefined {
  const e = event.event;
  switch (e.case) {
    case "progress":
      return { type: "progress", message: e.value.message, ...(e.value.fractionComplete !== undefined ? { fraction: e.value.fractionComplete } : {}) };
    case "partialResult":
      return { type: "partial", payload: (e.value.payload ?? {}) as Json };
    case "exitStatus":
      return { type: "exit", exitCode: e.value.exitCode, ...(e.value.signal !== undefined ? { signal: e.value.signal } : {}) };
    case "result": {
      const payload = e.value.payload ?? {};
      const violations = schema?.outputSchema ? validateValue(jsonSchemaFromWire(schema.outputSchema) as unknown as JsonSchema, payload) : [];
      return { type: "result", payload: payload as Json, violations: violations.map((v) => ({ path: v.path, message: v.message })) };
    }
    case "error":
      return {
        type: "error",
        category: categoryName(e.value.category),
        message: e.value.message,
        retryable: e.value.retryable,
        ...(e.value.details ? { details: e.value.details as Json } : {}),
      };
    default:
      return undefined;
  }
}

/** A provider launched for the inspector, with its history; Restart launches it again. */
export class InspectSession {
  #launched: LaunchedProvider;
  readonly #provider: ProviderCommand;
  readonly #kernel: NonNullable<LaunchOptions["kernel"]>;
  readonly #keeper = new SecretKeeper();
  readonly #listeners = new Set<(message: StreamMessage) => void>();
  #attributes: readonly ConfigAttributeDeclaration[];
  #tools: ToolView[];
  readonly #schemas = new Map<string, ToolSchema>();
  readonly #calls: RunningCall[] = [];
  readonly #hooks: FiredHook[] = [];
  #hookPoints: HookPointView[];
  readonly #logs: LogLineView[] = [];
  readonly #callbacks: CallbackView[] = [];
  readonly #started = performance.now();
  readonly #workingDirectory: string;
  readonly #poller: NodeJS.Timeout;
  readonly #onProviderChange: ((line: string) => void) | undefined;
  #identity: IdentityView;
  /** The config the provider accepted last (it keeps it through a rejected Configure). */
  #config: JsonObject | undefined;
  /** The last config sent, accepted or not (a restart sends the accepted one, else this). */
  #lastSent: JsonObject = {};
  #configState: ConfigStateView = { config: {}, inForce: false, status: "unconfigured", secretsSet: [] };
  #replies: CannedRepliesView = defaultReplies;
  #restarting = false;
  #closed = false;
  #seq = 0;
  #stderrSeen = 0;
  #logCallbacksSeen = 0;
  #emitted = 0n;
  #turn = 0;
  readonly #callTimeoutMs: number | undefined;

  /** A unary call's deadline: `usual`, or --timeout when that is shorter. */
  #bound(usual: number): { timeoutMs: number } {
    return { timeoutMs: Math.min(usual, this.#callTimeoutMs ?? usual) };
  }

  private constructor(
    launched: LaunchedProvider,
    init: {
      provider: ProviderCommand;
      kernel: NonNullable<LaunchOptions["kernel"]>;
      loaded: Awaited<ReturnType<typeof loadProvider>>;
      workingDirectory: string;
      pollMs: number;
      onProviderChange: ((line: string) => void) | undefined;
      callTimeoutMs: number | undefined;
    },
  ) {
    this.#callTimeoutMs = init.callTimeoutMs;
    this.#launched = launched;
    this.#provider = init.provider;
    this.#kernel = init.kernel;
    this.#identity = init.loaded.identity;
    this.#attributes = init.loaded.attributes;
    this.#tools = [];
    this.#setTools(init.loaded.tools);
    this.#workingDirectory = init.workingDirectory;
    this.#hookPoints = hookPointViews(init.loaded.hookPoints, init.workingDirectory);
    this.#onProviderChange = init.onProviderChange;
    this.#poller = setInterval(() => this.#poll(), init.pollMs);
    this.#poller.unref();
    this.#watchExit(launched);
  }

  /** Launches the provider, reads GetSchema and Describe, and sends the first Configure. */
  static async start(provider: ProviderCommand, options: InspectSessionOptions): Promise<InspectSession> {
    // The responders read the session's replies when a callback arrives; the session exists by then.
    let session: InspectSession | undefined;
    const kernel: NonNullable<LaunchOptions["kernel"]> = {
      emit: (request) => (session ? session.#answerEmit(request) : { id: "event-0", sequence: 0n }),
      runSession: (request) => {
        if (!session) throw new Error("the inspector is still starting");
        return session.#answer("runSession", toJson(RunSessionRequestSchema, request) as Json, RunSessionResultSchema, session.#replies.runSession);
      },
      countTokens: (request) => {
        if (!session) throw new Error("the inspector is still starting");
        return session.#answer("countTokens", toJson(CountTokensRequestSchema, request) as Json, CountTokensResultSchema, session.#replies.countTokens);
      },
    };
    // The CLI's launch: a provider that cannot start is a launch problem saying what to do (exit 2).
    const launched = await launchProvider(provider, { ...options.launchOptions, kernel });
    try {
      options.onStage?.("GetSchema and Describe");
      const loaded = await loadProvider(provider, launched);
      session = new InspectSession(launched, {
        provider,
        kernel,
        callTimeoutMs: options.callTimeoutMs,
        loaded,
        workingDirectory: options.workingDirectory,
        pollMs: options.pollMs ?? 100,
        onProviderChange: options.onProviderChange,
      });
      options.onStage?.("Configure");
      await session.configure({ config: (options.config ?? {}) as { [key: string]: Json } });
      return session;
    } catch (error) {
      if (session) await session.close();
      else await launched.kill();
      throw error;
    }
  }

  /**
   * Stops the provider (if it still runs) and launches the same command again, so a rebuilt
   * provider is picked up: its schema, identity and config attributes are read anew, the config in
   * force (else the last one sent) is sent again, and the page gets a new snapshot. The history,
   * logs and callbacks stay.
   */
  async restart(): Promise<RestartAnswerView> {
    if (this.#restarting) throw new InspectRequestError("a restart is already under way");
    this.#restarting = true;
    try {
      for (const call of this.#calls) call.rpc?.cancel();
      for (const hook of this.#hooks) hook.controller?.abort();
      this.#poll();
      await this.#launched.kill();
      let launched: LaunchedProvider | undefined;
      try {
        launched = await launchProvider(this.#provider, { kernel: this.#kernel });
        const loaded = await loadProvider(this.#provider, launched);
        this.#launched = launched;
        this.#stderrSeen = 0;
        this.#logCallbacksSeen = 0;
        this.#identity = loaded.identity;
        this.#attributes = loaded.attributes;
        this.#setTools(loaded.tools);
        this.#hookPoints = hookPointViews(loaded.hookPoints, this.#workingDirectory);
      } catch (error) {
        await launched?.kill();
        const message = this.redactText(`the restart failed: ${error instanceof Error ? error.message : String(error)}`);
        this.#identity = { ...this.#identity, exited: message };
        this.#publish({ kind: "identity", identity: this.#identity });
        this.#onProviderChange?.(`${message.split("\n")[0]}; fix it and Restart from the page again`);
        return { ok: false, message };
      }
      this.#watchExit(launched);
      const configured = this.#config ?? this.#lastSent;
      this.#configState = { config: {}, inForce: false, status: "unconfigured", secretsSet: [] };
      this.#config = undefined;
      await this.configure({ config: configured as { [key: string]: Json } });
      this.#publish({ kind: "snapshot", snapshot: this.snapshot() });
      this.#onProviderChange?.(this.redactText(`restarted the provider: ${this.#identity.command} (pid ${launched.pid})`));
      return { ok: true, pid: launched.pid };
    } finally {
      this.#restarting = false;
    }
  }

  /** Receives every stream message from now on (already redacted); returns the unsubscribe. */
  subscribe(listener: (message: StreamMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A text for the page (an error message of the inspector itself), redacted. */
  redactText(text: string): string {
    return this.#keeper.redactor.string(text);
  }

  /** Everything the page draws, redacted. */
  snapshot(): InspectorSnapshot {
    this.#poll();
    return this.#keeper.json<InspectorSnapshot>({
      identity: this.#identity,
      tools: this.#tools,
      configAttributes: configAttributeViews(this.#attributes),
      configState: this.#configState,
      calls: this.#calls.map((c) => c.view),
      hookPoints: this.#hookPoints,
      hooks: this.#hooks.map((h) => h.view),
      logs: this.#logs,
      callbacks: this.#callbacks,
      replies: this.#replies,
      workingDirectory: this.#workingDirectory,
    });
  }

  /** Sends Configure. `keep` fills sensitive attributes from the current config, so the page never needs them. */
  async configure(body: ConfigureRequestBody): Promise<ConfigureAnswer> {
    if (!isJsonObject(body.config)) throw new InspectRequestError("config must be a JSON object");
    const config = structuredClone(body.config) as JsonObject;
    for (const name of body.keep ?? []) {
      if (typeof name !== "string" || !keepSecret(this.#attributes, this.#config, config, name.split("."))) {
        throw new InspectRequestError(`keep: ${JSON.stringify(name)} is not a sensitive attribute`);
      }
    }
    // Known before the call: a rejection that echoes the secret is redacted too.
    this.#keeper.remember(this.#attributes, config);
    this.#lastSent = config;
    const masked = maskConfig(this.#attributes, config) as { [key: string]: Json };
    let ok: boolean;
    try {
      await this.#launched.configure(config, this.#bound(30_000));
      this.#config = config;
      this.#configState = { config: masked, inForce: true, status: "accepted", secretsSet: secretsSet(this.#attributes, config) };
      ok = true;
    } catch (error) {
      const answer = failureAnswer(error);
      const message = answer.ok ? "" : answer.message;
      const details = answer.ok ? undefined : answer.details;
      // The provider keeps the config it accepted before: that one is still in force.
      this.#configState = {
        config: this.#configState.config,
        inForce: this.#configState.inForce,
        status: "rejected",
        secretsSet: secretsSet(this.#attributes, this.#config ?? {}),
        rejected: masked,
        error: { message, ...(details !== undefined ? { details } : {}) },
      };
      ok = false;
    }
    this.#publish({ kind: "config", state: this.#configState });
    if (ok) await this.#probePreviews();
    return this.#keeper.json({ ok, state: this.#configState });
  }

  /** Starts an Invoke; its events arrive on the stream. */
  invoke(body: InvokeRequestBody): CallView {
    if (typeof body.tool !== "string" || body.tool === "") throw new InspectRequestError("tool must be a tool's name");
    if (!isJsonObject(body.args)) throw new InspectRequestError("args must be a JSON object");
    const workingDirectory = typeof body.workingDirectory === "string" && body.workingDirectory !== "" ? body.workingDirectory : this.#workingDirectory;
    const id = `inspect-${randomUUID()}`;
    this.#turn++;
    const rpc = this.#launched.invoke({
      id,
      toolName: body.tool,
      arguments: body.args as JsonObject,
      callContext: { sessionId: `inspect-session-${process.pid}`, turnId: String(this.#turn), workingDirectory },
    });
    const running: RunningCall = {
      view: { id, tool: body.tool, args: body.args, workingDirectory, startedAt: Date.now(), events: [] },
      rpc,
      outputBytes: 0,
      droppedBytes: 0,
    };
    this.#calls.push(running);
    if (this.#calls.length > historyLimit) this.#calls.splice(0, this.#calls.length - historyLimit);
    this.#publish({ kind: "call-start", call: running.view });
    // --timeout: a call still running then is cancelled, as the kernel cancels one past its deadline.
    const bound = this.#callTimeoutMs === undefined ? undefined : setTimeout(() => rpc.cancel(), this.#callTimeoutMs);
    bound?.unref();
    void this.#follow(running, rpc, performance.now(), this.#launched).finally(() => clearTimeout(bound));
    return this.#keeper.json(running.view);
  }

  /** Cancels a running call's (or hook call's) RPC, as the kernel does. */
  cancel(id: string): void {
    const call = this.#calls.find((c) => c.view.id === id);
    const hook = this.#hooks.find((h) => h.view.id === id);
    if (!call && !hook) throw new InspectRequestError(`no call ${JSON.stringify(id)}`);
    call?.rpc?.cancel();
    hook?.controller?.abort();
  }

  /**
   * Fires one hook point at the provider as the kernel's dispatcher does (DispatchHook), in any mode
   * at any point, declared or not (so the refusal can be seen); the answer and the handler's Log
   * lines arrive on the stream.
   */
  hook(body: HookRequestBody): HookCallView {
    let fired: ReturnType<typeof hookRequestOf>;
    try {
      fired = hookRequestOf(body);
    } catch (error) {
      if (error instanceof HookRequestProblem) throw new InspectRequestError(error.message);
      throw error;
    }
    const { point, mode, request, timeoutMs } = fired;
    const hook: FiredHook = {
      view: {
        id: `inspect-hook-${randomUUID()}`,
        point,
        mode,
        payload: body.payload,
        ...(request.subscriptionId ? { subscriptionId: request.subscriptionId } : {}),
        timeoutMs,
        advertised: this.#hookPoints.some((p) => p.name === point && p.advertised),
        startedAt: Date.now(),
        logs: [],
      },
      controller: new AbortController(),
    };
    this.#hooks.push(hook);
    if (this.#hooks.length > historyLimit) this.#hooks.splice(0, this.#hooks.length - historyLimit);
    this.#publish({ kind: "hook", hook: hook.view });
    void this.#fire(hook, request, mode, timeoutMs);
    return this.#keeper.json(hook.view);
  }

  /** Preview of a call: the RenderTree, or why not. */
  async preview(body: InvokeRequestBody): Promise<TreeAnswer> {
    if (!isJsonObject(body.args)) throw new InspectRequestError("args must be a JSON object");
    const workingDirectory = typeof body.workingDirectory === "string" && body.workingDirectory !== "" ? body.workingDirectory : this.#workingDirectory;
    const started = performance.now();
    let answer: TreeAnswer;
    try {
      const response = await this.#launched.preview(
        {
          id: `inspect-preview-${randomUUID()}`,
          toolName: body.tool,
          arguments: body.args as JsonObject,
          callContext: { sessionId: `inspect-session-${process.pid}`, turnId: String(this.#turn + 1), workingDirectory },
        },
        this.#bound(30_000),
      );
      answer = this.#treeAnswer(response.preview, started);
      this.#markPreview(body.tool, true);
    } catch (error) {
      answer = failureAnswer(error);
      if (error instanceof ProviderCallError && error.code === grpcStatus.UNIMPLEMENTED) this.#markPreview(body.tool, false);
    }
    return this.#keeper.json(answer);
  }

  /** Render of an emitted payload (text or base64) under a schema_version. */
  async render(body: { schemaVersion: string; payload: string; encoding?: "text" | "base64" }): Promise<TreeAnswer> {
    if (typeof body.schemaVersion !== "string" || typeof body.payload !== "string") throw new InspectRequestError("schemaVersion and payload must be strings");
    const payload = body.encoding === "base64" ? new Uint8Array(Buffer.from(body.payload, "base64")) : new TextEncoder().encode(body.payload);
    const started = performance.now();
    let answer: TreeAnswer;
    try {
      answer = this.#treeAnswer((await this.#launched.render(payload, body.schemaVersion, this.#bound(30_000))).tree, started);
    } catch (error) {
      answer = failureAnswer(error);
    }
    return this.#keeper.json(answer);
  }

  /** Replaces the canned replies; each must be the protobuf JSON of its result message. */
  setReplies(replies: Partial<CannedRepliesView>): CannedRepliesView {
    const next = { ...this.#replies, ...replies };
    const check = [
      ["emit", EmitResultSchema],
      ["runSession", RunSessionResultSchema],
      ["countTokens", CountTokensResultSchema],
    ] as const;
    for (const [name, schema] of check) {
      try {
        fromJson(schema, next[name] as JsonValue);
      } catch (error) {
        throw new InspectRequestError(`the ${name} reply is not a ${schema.typeName}: ${(error as Error).message}`);
      }
    }
    this.#replies = next;
    this.#publish({ kind: "replies", replies: next });
    return this.#keeper.json(next);
  }

  /**
   * Whether each tool answers Preview, asked once Configure is accepted: a Preview of arguments no
   * tool accepts is refused unrun (Preview never executes a call anyway), UNIMPLEMENTED when the
   * tool has none. The wire's ToolSchema does not say, and the page offers Preview only where one is.
   */
  async #probePreviews(): Promise<void> {
    const launched = this.#launched;
    const unknown = this.#tools.filter((t) => t.preview === undefined);
    await Promise.all(
      unknown.map(async (tool) => {
        try {
          await launched.preview(
            {
              id: `inspect-probe-${randomUUID()}`,
              toolName: tool.name,
              arguments: previewProbeArguments,
              callContext: { sessionId: `inspect-session-${process.pid}`, turnId: "0", workingDirectory: this.#workingDirectory },
            },
            { timeoutMs: 5_000 },
          );
          this.#markPreview(tool.name, true);
        } catch (error) {
          if (!(error instanceof ProviderCallError)) return;
          if (error.code === grpcStatus.UNIMPLEMENTED) this.#markPreview(tool.name, false);
          else if (error.code !== grpcStatus.FAILED_PRECONDITION && error.code !== grpcStatus.DEADLINE_EXCEEDED) this.#markPreview(tool.name, true);
        }
      }),
    );
  }

  /** The tools of a (re)loaded provider, their Preview not yet known. */
  #setTools(tools: readonly ToolSchema[]): void {
    this.#tools = tools.map((t) => toolView(t));
    this.#schemas.clear();
    for (const t of tools) this.#schemas.set(t.name, t);
  }

  /** Tells the page and the terminal when `launched` exits by itself (a restart's own stop aside). */
  #watchExit(launched: LaunchedProvider): void {
    void launched.exited.then((how) => {
      if (launched !== this.#launched || this.#restarting || this.#closed) return;
      this.#poll();
      const text = this.redactText(exitText(how, launched.stderr));
      this.#identity = { ...this.#identity, exited: text };
      this.#publish({ kind: "identity", identity: this.#identity });
      this.#onProviderChange?.(`${text}; the page's Restart launches it again`);
    });
  }

  /** Cancels what runs and kills the provider as go-plugin's Kill does. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poller);
    for (const call of this.#calls) call.rpc?.cancel();
    for (const hook of this.#hooks) hook.controller?.abort();
    await this.#launched.kill();
    this.#listeners.clear();
  }

  async #fire(hook: FiredHook, request: DispatchHookRequest, mode: HookModeName, timeoutMs: number): Promise<void> {
    const started = performance.now();
    const signal = (hook.controller as AbortController).signal;
    let answer: HookCallView["answer"];
    try {
      const response = await this.#launched.dispatchHookRequest(request, { timeoutMs, signal });
      answer = hookAnswerView(request, response, mode);
    } catch (error) {
      answer =
        error instanceof HookDispatchError
          ? hookFailureView(error, mode, statusName, signal.aborted)
          : { ok: false, status: "UNKNOWN", message: error instanceof Error ? error.message : String(error), refused: false, cancelled: false, line: "" };
    }
    hook.controller = undefined;
    // Lines the handler awaited have arrived by now: in the view before its answer.
    this.#poll();
    hook.endedAt = performance.now();
    hook.view.answer = answer;
    hook.view.durationMs = Math.round(hook.endedAt - started);
    this.#publish({ kind: "hook", hook: hook.view });
  }

  /**
   * The hook call a kernel Log line belongs to: by its logger (`<provider>.hook.<point>`, the
   * runtime's), the latest call at that point, running or answered moments ago; a line of another
   * logger only while one hook call and no tool call runs.
   */
  #hookOfLog(logger: string): FiredHook | undefined {
    const point = hookPointOfLogger(logger);
    const now = performance.now();
    if (point) {
      const latest = this.#hooks.findLast((h) => h.view.point === point);
      return latest && (latest.endedAt === undefined || now - latest.endedAt <= hookLateLogMs) ? latest : undefined;
    }
    const running = this.#hooks.filter((h) => h.endedAt === undefined);
    return running.length === 1 && !this.#calls.some((c) => c.rpc) ? running[0] : undefined;
  }

  #treeAnswer(tree: RenderTree | undefined, started: number): TreeAnswer {
    return { ok: true, tree: (tree ? toJson(RenderTreeSchema, tree) : {}) as { root?: Json }, durationMs: Math.round(performance.now() - started) };
  }

  #markPreview(name: string, preview: boolean): void {
    const at = this.#tools.findIndex((t) => t.name === name);
    const schema = this.#schemas.get(name);
    if (at < 0 || !schema || this.#tools[at]?.preview === preview) return;
    const tool = toolView(schema, preview);
    this.#tools[at] = tool;
    this.#publish({ kind: "tool", tool });
  }

  async #follow(call: RunningCall, rpc: InvokeCall, started: number, launched: LaunchedProvider): Promise<void> {
    const redactor = this.#keeper.redactor;
    const streams = {
      stdout: { redact: redactor.stream(), decoder: new TextDecoder() },
      stderr: { redact: redactor.stream(), decoder: new TextDecoder() },
    };
    let firstEventMs: number | undefined;
    let terminal = false;
    const push = (event: CallEventView) => {
      call.view.events.push(event);
      this.#publish({ kind: "call-event", id: call.view.id, event });
    };
    const batcher = new OutputBatcher((batch) => push({ type: "output", ...batch }), outputBatchMs);
    const flushPending = () => batcher.flush();
    const add = (event: CallEventView) => {
      flushPending();
      push(event);
    };
    const output = (stream: "stdout" | "stderr", bytes: Uint8Array) => {
      const text = streams[stream].decoder.decode(bytes, { stream: true });
      if (text === "") return;
      const size = Buffer.byteLength(text);
      if (call.outputBytes + size > outputLimitBytes) {
        call.droppedBytes += size;
        return;
      }
      call.outputBytes += size;
      batcher.add(stream, text);
    };
    const flushOutput = () => {
      for (const name of ["stdout", "stderr"] as const) {
        const s = streams[name];
        output(name, s.redact.flush());
        const rest = s.decoder.decode();
        if (rest !== "") output(name, new TextEncoder().encode(rest));
      }
      if (call.droppedBytes > 0)
        add({ type: "output", stream: "stderr", text: `\n[harness-tool inspect: ${call.droppedBytes} more bytes of output not shown]\n` });
    };
    const schema = this.#schemas.get(call.view.tool);
    let problem: string | undefined;
    try {
      for await (const event of rpc) {
        firstEventMs ??= performance.now() - started;
        const e = event.event;
        if (e.case === "outputChunk") {
          const name = e.value.stream === OutputStream.STDERR ? "stderr" : "stdout";
          output(name, streams[name].redact.push(e.value.data));
          continue;
        }
        if (e.case === "result" || e.case === "error") {
          flushOutput();
          terminal = true;
        }
        const view = callEventView(event, schema);
        if (view) add(view);
      }
    } catch (error) {
      if (!(error instanceof ProviderCallError)) problem = `the inspector lost the call: ${(error as Error).message}`;
    }
    if (!terminal) flushOutput();
    flushPending();
    const outcome = await rpc.done;
    call.rpc = undefined;
    if (!problem && !terminal && !outcome.cancelled) {
      problem =
        outcome.code === grpcStatus.OK
          ? "the stream closed without a result or an error (a provider bug)"
          : `the RPC failed before a terminal event${(await exitsWithin(launched, 500)) ? ": the provider exited during the call" : ""}`;
    }
    const end: CallEndView = {
      status: statusName(outcome.code),
      details: outcome.details,
      cancelled: outcome.cancelled,
      durationMs: Math.round(performance.now() - started),
      ...(firstEventMs !== undefined ? { firstEventMs: Math.round(firstEventMs) } : {}),
      ...(problem ? { problem } : {}),
    };
    call.view.end = end;
    this.#publish({ kind: "call-end", id: call.view.id, end });
  }

  #answerEmit(request: EmitRequest) {
    this.#emitted += 1n;
    const canned = fromJson(EmitResultSchema, this.#replies.emit as JsonValue);
    // An empty id or sequence in the canned reply: numbered like the kernel numbers events.
    const reply = create(EmitResultSchema, { id: canned.id || `event-${this.#emitted}`, sequence: canned.sequence || this.#emitted });
    this.#record("emit", emitRequestJson(request), toJson(EmitResultSchema, reply) as Json);
    return reply;
  }

  #answer<S extends typeof RunSessionResultSchema | typeof CountTokensResultSchema>(
    method: "runSession" | "countTokens",
    request: Json,
    schema: S,
    reply: Json,
  ) {
    const message = fromJson(schema, reply as JsonValue);
    this.#record(method, request, reply);
    return message;
  }

  #record(method: CallbackView["method"], request: Json, reply?: Json): void {
    const callback: CallbackView = {
      seq: ++this.#seq,
      method,
      request,
      ...(reply !== undefined ? { reply } : {}),
      atMs: Math.round(performance.now() - this.#started),
    };
    this.#callbacks.push(callback);
    if (this.#callbacks.length > recordLimit) this.#callbacks.splice(0, this.#callbacks.length - recordLimit);
    this.#publish({ kind: "callback", callback });
  }

  /** New stderr lines and Log callbacks since the last look (the host client records them in arrays). */
  #poll(): void {
    const stderr = this.#launched.stderr;
    for (; this.#stderrSeen < stderr.length; this.#stderrSeen++) {
      const entry = stderr[this.#stderrSeen];
      if (!entry) continue;
      const line: LogLineView = {
        seq: ++this.#seq,
        level: entry.level,
        message: entry.message,
        fields: entry.fields as { [key: string]: Json },
        atMs: Math.round(performance.now() - this.#started),
      };
      this.#logs.push(line);
      if (this.#logs.length > recordLimit) this.#logs.splice(0, this.#logs.length - recordLimit);
      this.#publish({ kind: "log", line });
    }
    const logs = this.#launched.kernel.calls.log;
    for (; this.#logCallbacksSeen < logs.length; this.#logCallbacksSeen++) {
      const request = logs[this.#logCallbacksSeen];
      if (!request) continue;
      this.#record("log", toJson(LogRequestSchema, request) as Json);
      const hook = this.#hookOfLog(request.entry?.logger ?? "");
      if (hook && hook.view.logs.length < hookLogLimit) {
        hook.view.logs.push(hookLogView(request));
        this.#publish({ kind: "hook", hook: hook.view });
      }
    }
  }

  /** The one exit towards the page for stream messages: redacted here. */
  #publish(message: StreamMessage): void {
    if (this.#listeners.size === 0) return;
    const safe = this.#keeper.json(message);
    for (const listener of this.#listeners) listener(safe);
  }
}
