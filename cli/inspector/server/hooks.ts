/**
 * The hook calls fired from the page's Hooks panel: each DispatchHook sent as the kernel's
 * dispatcher sends it, its answer or failure, and the kernel Log lines its handler wrote (some
 * arrive after the answer). How each piece reads is hook-views.ts's; this part keeps the history.
 */
import { randomUUID } from "node:crypto";
import type { HookPoint } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import type { DispatchHookRequest } from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { LogRequest } from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import type { HookModeName } from "harness-tool";
import { HookDispatchError } from "harness-tool/host";
import type { HookCallView, HookLogView, HookPointView, HookRequestBody } from "../protocol/page-protocol.js";
import {
  hookAnswerView,
  hookFailureView,
  hookLogView,
  hookPointOfLogger,
  hookPointViews,
  hookRequestOf,
  HookRequestProblem,
} from "./hook-views.js";
import type { PageChannel } from "./page-channel.js";
import { historyLimit, InspectRequestError, statusName, type ProviderLink } from "./session-state.js";

/** Log lines kept per hook call. */
const hookLogLimit = 200;
/** A hook handler's Log line that arrives this long after its answer still belongs to it (an un-awaited `ctx.log`). */
const hookLateLogMs = 2000;

interface FiredHook {
  readonly view: HookCallView & { logs: HookLogView[]; answer?: HookCallView["answer"]; durationMs?: number };
  /** Aborts the RPC while it runs, as the kernel cancels a hook call. */
  controller: AbortController | undefined;
  /** performance.now() at its answer. */
  endedAt?: number;
}

/** The hook points the page offers and the hook calls fired from it. */
export class HookHistory {
  readonly #link: ProviderLink;
  readonly #page: PageChannel;
  /** Reads the Log lines that arrived so far, before an answer is shown. */
  readonly #catchUp: () => void;
  readonly #hooks: FiredHook[] = [];
  #points: HookPointView[] = [];

  constructor(link: ProviderLink, page: PageChannel, catchUp: () => void) {
    this.#link = link;
    this.#page = page;
    this.#catchUp = catchUp;
  }

  /** The points the (re)loaded provider advertises: every point, with check's samples, when it advertises one. */
  setPoints(advertised: readonly HookPoint[]): void {
    this.#points = hookPointViews(advertised, this.#link.workingDirectory);
  }

  /** The points as the Hooks panel offers them. */
  get points(): readonly HookPointView[] {
    return this.#points;
  }

  /** The hook calls as the page's history shows them. */
  views(): HookCallView[] {
    return this.#hooks.map((h) => h.view);
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
        advertised: this.#points.some((p) => p.name === point && p.advertised),
        startedAt: Date.now(),
        logs: [],
      },
      controller: new AbortController(),
    };
    this.#hooks.push(hook);
    if (this.#hooks.length > historyLimit) this.#hooks.splice(0, this.#hooks.length - historyLimit);
    this.#page.publish({ kind: "hook", hook: hook.view });
    void this.#fire(hook, request, mode, timeoutMs);
    return this.#page.json(hook.view);
  }

  /** Cancels the hook call `id` if it runs; false when there is no such call. */
  cancel(id: string): boolean {
    const hook = this.#hooks.find((h) => h.view.id === id);
    hook?.controller?.abort();
    return hook !== undefined;
  }

  /** Cancels every running hook call (a restart or the end of the session). */
  cancelAll(): void {
    for (const hook of this.#hooks) hook.controller?.abort();
  }

  /** Adds a kernel Log line to the hook call it belongs to, if any (`callRunning`: a tool call runs too). */
  addLog(request: LogRequest, callRunning: boolean): void {
    const hook = this.#hookOfLog(request.entry?.logger ?? "", callRunning);
    if (hook && hook.view.logs.length < hookLogLimit) {
      hook.view.logs.push(hookLogView(request));
      this.#page.publish({ kind: "hook", hook: hook.view });
    }
  }

  async #fire(hook: FiredHook, request: DispatchHookRequest, mode: HookModeName, timeoutMs: number): Promise<void> {
    const started = performance.now();
    const signal = (hook.controller as AbortController).signal;
    let answer: HookCallView["answer"];
    try {
      const response = await this.#link.launched.dispatchHookRequest(request, { timeoutMs, signal });
      answer = hookAnswerView(request, response, mode);
    } catch (error) {
      answer =
        error instanceof HookDispatchError
          ? hookFailureView(error, mode, statusName, signal.aborted)
          : {
              ok: false,
              status: "UNKNOWN",
              message: error instanceof Error ? error.message : String(error),
              refused: false,
              cancelled: false,
              line: "",
            };
    }
    hook.controller = undefined;
    // Lines the handler awaited have arrived by now: in the view before its answer.
    this.#catchUp();
    hook.endedAt = performance.now();
    hook.view.answer = answer;
    hook.view.durationMs = Math.round(hook.endedAt - started);
    this.#page.publish({ kind: "hook", hook: hook.view });
  }

  /**
   * The hook call a kernel Log line belongs to: by its logger (`<provider>.hook.<point>`, the
   * runtime's), the latest call at that point, running or answered moments ago; a line of another
   * logger only while one hook call and no tool call runs.
   */
  #hookOfLog(logger: string, callRunning: boolean): FiredHook | undefined {
    const point = hookPointOfLogger(logger);
    const now = performance.now();
    if (point) {
      const latest = this.#hooks.findLast((h) => h.view.point === point);
      return latest && (latest.endedAt === undefined || now - latest.endedAt <= hookLateLogMs) ? latest : undefined;
    }
    const running = this.#hooks.filter((h) => h.endedAt === undefined);
    return running.length === 1 && !callRunning ? running[0] : undefined;
  }
}
