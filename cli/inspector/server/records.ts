/**
 * The provider's log and kernel-callback records: its stderr lines (at the level go-plugin's host
 * logs them) and every KernelCallbackService call, read from what the host client keeps and numbered
 * in one sequence for the page.
 */
import { toJson } from "@bufbuild/protobuf";
import { LogRequestSchema, type LogRequest } from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import type { CallbackView, Json, LogLineView } from "../protocol/page-protocol.js";
import type { PageChannel } from "./page-channel.js";
import type { ProviderLink } from "./session-state.js";

/** Log lines and callbacks kept. */
const recordLimit = 2000;

/** The log lines and callbacks of this session, across restarts. */
export class ProviderRecords {
  readonly #link: ProviderLink;
  readonly #page: PageChannel;
  /** Told of each kernel Log call after it is recorded (a hook handler's line goes to its hook call). */
  readonly #onKernelLog: (request: LogRequest) => void;
  readonly #logs: LogLineView[] = [];
  readonly #callbacks: CallbackView[] = [];
  readonly #started = performance.now();
  #seq = 0;
  #stderrSeen = 0;
  #logCallbacksSeen = 0;

  constructor(link: ProviderLink, page: PageChannel, onKernelLog: (request: LogRequest) => void) {
    this.#link = link;
    this.#page = page;
    this.#onKernelLog = onKernelLog;
  }

  get logs(): readonly LogLineView[] {
    return this.#logs;
  }

  get callbacks(): readonly CallbackView[] {
    return this.#callbacks;
  }

  /** A relaunched provider: its stderr and Log records start empty. */
  relaunched(): void {
    this.#stderrSeen = 0;
    this.#logCallbacksSeen = 0;
  }

  /** Records a kernel callback and the reply it got. */
  record(method: CallbackView["method"], request: Json, reply?: Json): void {
    const callback: CallbackView = {
      seq: ++this.#seq,
      method,
      request,
      ...(reply !== undefined ? { reply } : {}),
      atMs: Math.round(performance.now() - this.#started),
    };
    this.#callbacks.push(callback);
    if (this.#callbacks.length > recordLimit) this.#callbacks.splice(0, this.#callbacks.length - recordLimit);
    this.#page.publish({ kind: "callback", callback });
  }

  /** New stderr lines and Log callbacks since the last look (the host client records them in arrays). */
  poll(): void {
    const stderr = this.#link.launched.stderr;
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
      this.#page.publish({ kind: "log", line });
    }
    const logs = this.#link.launched.kernel.calls.log;
    for (; this.#logCallbacksSeen < logs.length; this.#logCallbacksSeen++) {
      const request = logs[this.#logCallbacksSeen];
      if (!request) continue;
      this.record("log", toJson(LogRequestSchema, request) as Json);
      this.#onKernelLog(request);
    }
  }
}
