/**
 * One hook call in flight: its handler run against the call's stop signal. The call stops when the
 * kernel cancels it, when its deadline passes, or when the provider shuts down; it answers at once
 * then, whether or not the handler honours the signal (a handler that ignores it is not waited
 * for), and counts as in flight until the handler settles or the settle grace has passed.
 */
import type { HookCallInfo } from "../../provider/hook-subscriptions.js";
import type { CallTrace } from "../../telemetry/call-spans.js";
import type { LiveCall, ServiceRuntime } from "../calls/service-runtime.js";
import { setLongTimeout } from "../calls/long-timeout.js";
import { buildHookContext } from "./hook-context.js";
import type { ResolvedHook } from "./hook-request.js";
import type { HookCallControl } from "./hook-service-core.js";

/** Why a call stopped before its handler settled. */
export type HookStop = "cancelled" | "timeout" | "shutdown";

/** How a handler run ended. */
export type HookSettlement =
  | { readonly value: unknown }
  | { readonly thrown: unknown }
  | { readonly stopped: HookStop };

/** Milliseconds until `deadline`, or undefined for none (grpc-js reports no deadline as Infinity). */
function msUntil(deadline: Date | undefined): number | undefined {
  if (deadline === undefined || !Number.isFinite(deadline.getTime())) return undefined;
  return Math.max(0, deadline.getTime() - Date.now());
}

/** The session a payload names (session-start, session-end), else "". */
function sessionIdOf(hook: ResolvedHook): string {
  const value = hook.request.payload?.payload.value as { sessionId?: unknown } | undefined;
  return typeof value?.sessionId === "string" ? value.sessionId : "";
}

/** One DispatchHook whose handler runs. */
export class HookInFlight implements LiveCall {
  readonly #rt: ServiceRuntime;
  readonly #hook: ResolvedHook;
  readonly #config: unknown;
  readonly #control: HookCallControl;
  readonly #trace: CallTrace;
  readonly #abort = new AbortController();
  #stop: ((reason: HookStop) => void) | undefined;
  #endCall: (() => void) | undefined;
  #graceMs: number;
  #graceTimer: NodeJS.Timeout | undefined;
  readonly ended: Promise<void>;

  constructor(rt: ServiceRuntime, hook: ResolvedHook, config: unknown, control: HookCallControl, trace: CallTrace) {
    this.#rt = rt;
    this.#hook = hook;
    this.#config = config;
    this.#control = control;
    this.#trace = trace;
    this.#graceMs = rt.timings.settleGraceMs;
    this.ended = new Promise((resolve) => {
      this.#endCall = resolve;
    });
  }

  /** Stops the call for the provider's shutdown; its handler then has `graceMs` to settle. */
  stopForShutdown(graceMs: number): void {
    this.#graceMs = Math.min(this.#graceMs, graceMs);
    this.#stop?.("shutdown");
  }

  /** Runs the handler; resolves with its value, its failure, or why the call stopped first. */
  async run(): Promise<HookSettlement> {
    const { deadline } = this.#control;
    const info: HookCallInfo = {
      point: this.#hook.point,
      mode: this.#hook.mode,
      ...(this.#hook.request.subscriptionId !== undefined ? { subscriptionId: this.#hook.request.subscriptionId } : {}),
      ...(deadline !== undefined && Number.isFinite(deadline.getTime()) ? { deadline } : {}),
      sessionId: sessionIdOf(this.#hook),
    };
    const stoppedEarly = new Promise<HookSettlement>((resolve) => {
      this.#stop = (reason) => {
        if (this.#abort.signal.aborted) return;
        this.#abort.abort(new Error(`the hook call stopped: ${reason}`));
        // A handler that ignores its signal is not waited for longer than the grace.
        this.#graceTimer = setTimeout(() => this.#done(), this.#graceMs);
        this.#graceTimer.unref();
        resolve({ stopped: reason });
      };
    });
    const untilDeadline = msUntil(deadline);
    const timer =
      untilDeadline === undefined ? undefined : setLongTimeout(() => this.#stop?.("timeout"), untilDeadline);
    // The transport's cancel at or past the deadline is the deadline's doing (grpc-js ends the call then).
    const onCancel = () =>
      this.#stop?.(untilDeadline !== undefined && msUntil(deadline) === 0 ? "timeout" : "cancelled");
    if (this.#control.cancelled.aborted) onCancel();
    else this.#control.cancelled.addEventListener("abort", onCancel, { once: true });

    this.#rt.calls.add(this);
    const handler = this.#hook.handler as (payload: unknown, context: unknown) => Promise<unknown>;
    let running: Promise<unknown>;
    try {
      const context = buildHookContext(this.#rt, info, this.#config, this.#abort.signal, this.#trace);
      running = Promise.resolve(handler(this.#hook.request.payload?.payload.value, context));
    } catch (error) {
      running = Promise.reject(error);
    }
    const settled = running.then(
      (value): HookSettlement => ({ value }),
      (thrown: unknown): HookSettlement => ({ thrown }),
    );
    const outcome = await Promise.race([settled, stoppedEarly]);
    timer?.clear();
    this.#control.cancelled.removeEventListener("abort", onCancel);
    void settled.then(() => this.#done());
    return outcome;
  }

  /** Counts the call as ended: once the handler settles, or the grace after a stop has passed. */
  #done(): void {
    clearTimeout(this.#graceTimer);
    this.#rt.calls.delete(this);
    this.#endCall?.();
  }
}
