/**
 * One provider under inspection: launched through the go-plugin handshake as the kernel launches it,
 * configured, called, and watched (stderr log lines, kernel callbacks). This is the parts' door and
 * its life: start, restart and close, and the snapshot the page draws. Each concern is a part of its
 * own (tools.ts, config.ts, calls.ts, hooks.ts, records.ts, kernel-replies.ts) sharing the provider
 * (session-state.ts) and one exit towards the page (page-channel.ts), which passes the secret keeper,
 * so a new kind of message cannot forget redaction.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { LaunchedProvider, LaunchOptions } from "harness-tool/host";
import { launchProvider } from "../../provider/launch-provider.js";
import type { ProviderCommand } from "../../provider/provider-target.js";
import type {
  CallView,
  CannedRepliesView,
  ConfigureAnswer,
  ConfigureRequestBody,
  HookCallView,
  HookRequestBody,
  IdentityView,
  InspectorSnapshot,
  InvokeRequestBody,
  Json,
  RestartAnswerView,
  StreamMessage,
  TreeAnswer,
} from "../protocol/page-protocol.js";
import { CallHistory } from "./calls.js";
import { ProviderConfig } from "./config.js";
import { HookHistory } from "./hooks.js";
import { type Kernel, KernelReplies, kernelResponders } from "./kernel-replies.js";
import { PageChannel } from "./page-channel.js";
import { exitText, loadProvider, type LoadedProvider } from "./provider-load.js";
import { ProviderRecords } from "./records.js";
import { InspectRequestError, ProviderLink } from "./session-state.js";
import { ToolList } from "./tools.js";

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

/** A provider launched for the inspector, with its history; Restart launches it again. */
export class InspectSession {
  readonly #provider: ProviderCommand;
  readonly #kernel: Kernel;
  readonly #link: ProviderLink;
  readonly #page = new PageChannel();
  readonly #tools: ToolList;
  readonly #config: ProviderConfig;
  readonly #calls: CallHistory;
  readonly #hooks: HookHistory;
  readonly #records: ProviderRecords;
  readonly #replies: KernelReplies;
  readonly #poller: NodeJS.Timeout;
  readonly #onProviderChange: ((line: string) => void) | undefined;
  #identity: IdentityView;
  #restarting = false;
  #closed = false;

  private constructor(
    launched: LaunchedProvider,
    init: { provider: ProviderCommand; kernel: Kernel; loaded: LoadedProvider; options: InspectSessionOptions },
  ) {
    const { options, loaded } = init;
    this.#provider = init.provider;
    this.#kernel = init.kernel;
    this.#link = new ProviderLink(launched, options.workingDirectory, options.callTimeoutMs);
    this.#identity = loaded.identity;
    this.#tools = new ToolList(this.#link, this.#page, loaded.tools);
    this.#config = new ProviderConfig(this.#link, this.#page, loaded.attributes);
    this.#calls = new CallHistory(this.#link, this.#page, this.#tools);
    this.#hooks = new HookHistory(this.#link, this.#page, () => this.#records.poll());
    this.#hooks.setPoints(loaded.hookPoints);
    this.#records = new ProviderRecords(this.#link, this.#page, (request) =>
      this.#hooks.addLog(request, this.#calls.running),
    );
    this.#replies = new KernelReplies(this.#page, this.#records);
    this.#onProviderChange = options.onProviderChange;
    this.#poller = setInterval(() => this.#records.poll(), options.pollMs ?? 100);
    this.#poller.unref();
    this.#watchExit(launched);
  }

  /** Launches the provider, reads GetSchema and Describe, and sends the first Configure. */
  static async start(provider: ProviderCommand, options: InspectSessionOptions): Promise<InspectSession> {
    let session: InspectSession | undefined;
    const kernel = kernelResponders(() => (session ? session.#replies : undefined));
    // The CLI's launch: a provider that cannot start is a launch problem saying what to do (exit 2).
    const launched = await launchProvider(provider, { ...options.launchOptions, kernel });
    try {
      options.onStage?.("GetSchema and Describe");
      const loaded = await loadProvider(provider, launched);
      session = new InspectSession(launched, { provider, kernel, loaded, options });
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
      this.#calls.cancelAll();
      this.#hooks.cancelAll();
      this.#records.poll();
      await this.#link.launched.kill();
      let launched: LaunchedProvider | undefined;
      let configured: JsonObject;
      try {
        launched = await launchProvider(this.#provider, { kernel: this.#kernel });
        const loaded = await loadProvider(this.#provider, launched);
        this.#link.launched = launched;
        this.#records.relaunched();
        this.#identity = loaded.identity;
        configured = this.#config.relaunched(loaded.attributes);
        this.#tools.set(loaded.tools);
        this.#hooks.setPoints(loaded.hookPoints);
      } catch (error) {
        await launched?.kill();
        const message = this.redactText(
          `the restart failed: ${error instanceof Error ? error.message : String(error)}`,
        );
        this.#identity = { ...this.#identity, exited: message };
        this.#page.publish({ kind: "identity", identity: this.#identity });
        this.#onProviderChange?.(`${message.split("\n")[0]}; fix it and Restart from the page again`);
        return { ok: false, message };
      }
      this.#watchExit(launched);
      await this.configure({ config: configured as { [key: string]: Json } });
      this.#page.publish({ kind: "snapshot", snapshot: this.snapshot() });
      this.#onProviderChange?.(
        this.redactText(`restarted the provider: ${this.#identity.command} (pid ${launched.pid})`),
      );
      return { ok: true, pid: launched.pid };
    } finally {
      this.#restarting = false;
    }
  }

  /** Receives every stream message from now on (already redacted); returns the unsubscribe. */
  subscribe(listener: (message: StreamMessage) => void): () => void {
    return this.#page.subscribe(listener);
  }

  /** A text for the page (an error message of the inspector itself), redacted. */
  redactText(text: string): string {
    return this.#page.redactText(text);
  }

  /** Everything the page draws, redacted. */
  snapshot(): InspectorSnapshot {
    this.#records.poll();
    return this.#page.json<InspectorSnapshot>({
      identity: this.#identity,
      tools: this.#tools.views,
      configAttributes: this.#config.attributeViews(),
      configState: this.#config.state,
      calls: this.#calls.views(),
      hookPoints: this.#hooks.points,
      hooks: this.#hooks.views(),
      logs: this.#records.logs,
      callbacks: this.#records.callbacks,
      replies: this.#replies.current,
      workingDirectory: this.#link.workingDirectory,
    });
  }

  /** Sends Configure (config.ts); once accepted, asks which tools have a Preview. */
  async configure(body: ConfigureRequestBody): Promise<ConfigureAnswer> {
    const ok = await this.#config.configure(body);
    if (ok) await this.#tools.probePreviews();
    return this.#page.json({ ok, state: this.#config.state });
  }

  /** Starts an Invoke (calls.ts); its events arrive on the stream. */
  invoke(body: InvokeRequestBody): CallView {
    return this.#calls.invoke(body);
  }

  /** Cancels a running call's (or hook call's) RPC, as the kernel does. */
  cancel(id: string): void {
    const call = this.#calls.cancel(id);
    const hook = this.#hooks.cancel(id);
    if (!call && !hook) throw new InspectRequestError(`no call ${JSON.stringify(id)}`);
  }

  /** Fires one hook point at the provider (hooks.ts); the answer and its Log lines arrive on the stream. */
  hook(body: HookRequestBody): HookCallView {
    return this.#hooks.hook(body);
  }

  /** Preview of a call (tools.ts): the RenderTree, or why not. */
  preview(body: InvokeRequestBody): Promise<TreeAnswer> {
    return this.#tools.preview(body);
  }

  /** Render of an emitted payload (tools.ts), text or base64, under a schema_version. */
  render(body: { schemaVersion: string; payload: string; encoding?: "text" | "base64" }): Promise<TreeAnswer> {
    return this.#tools.render(body);
  }

  /** Replaces the kernel's canned replies (kernel-replies.ts). */
  setReplies(replies: Partial<CannedRepliesView>): CannedRepliesView {
    return this.#replies.set(replies);
  }

  /** Tells the page and the terminal when `launched` exits by itself (a restart's own stop aside). */
  #watchExit(launched: LaunchedProvider): void {
    void launched.exited.then((how) => {
      if (launched !== this.#link.launched || this.#restarting || this.#closed) return;
      this.#records.poll();
      const text = this.redactText(exitText(how, launched.stderr));
      this.#identity = { ...this.#identity, exited: text };
      this.#page.publish({ kind: "identity", identity: this.#identity });
      this.#onProviderChange?.(`${text}; the page's Restart launches it again`);
    });
  }

  /** Cancels what runs and kills the provider as go-plugin's Kill does. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#poller);
    this.#calls.cancelAll();
    this.#hooks.cancelAll();
    await this.#link.launched.kill();
    this.#page.close();
  }
}
