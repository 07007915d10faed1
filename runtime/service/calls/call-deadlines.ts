/**
 * The default timeouts of one tool's calls in flight, on one Node timer instead of one per call.
 * Every call of a tool has the same timeout, so the calls' deadlines come in the order the calls
 * start: the live calls are a Set in that order, and the timer is armed for the first one's
 * deadline. A call that ends leaves the Set and the timer alone; when the timer fires it expires
 * every call whose deadline has passed and is armed again for the first one left. A timer per
 * call cost a call an insert into Node's timer lists and an unenroll, and at concurrency 1 a
 * timer list made and dropped each time (bench/RESULTS.md, issue 24 session 7).
 *
 * The timer keeps the process alive only while a call is live, as a call's own timer did.
 *
 * seed: ToolSchema.default_timeout — enforced by the runtime too.
 */

/** A call whose deadline is kept. */
export interface TimedCall {
  /** When the call times out, on performance.now()'s clock. Set by start(). */
  deadline: number;
  /** The deadline passed: stop the call. */
  timedOut(): void;
}

/** The deadlines of the calls of one tool, whose default timeout is `timeoutMs`. */
export class CallDeadlines {
  readonly #timeoutMs: number;
  readonly #live = new Set<TimedCall>();
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Starts the call's clock: timedOut() runs at its deadline unless end() runs first. */
  start(call: TimedCall): void {
    call.deadline = performance.now() + this.#timeoutMs;
    this.#live.add(call);
    if (this.#timer === undefined) this.#armForFirst();
    else if (this.#live.size === 1) this.#timer.ref();
  }

  /** The call ended: its deadline no longer counts. */
  end(call: TimedCall): void {
    // Armed for an earlier call, the timer stays; it fires once at most per timeout and re-arms.
    if (this.#live.delete(call) && this.#live.size === 0) this.#timer?.unref();
  }

  /** Arms the timer for the first live call's deadline (the earliest), if there is one. */
  #armForFirst(): void {
    const first = this.#live.values().next();
    if (first.done) return;
    // Node may fire a timer up to a millisecond before its delay: #fire checks the deadline again.
    this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(first.value.deadline - performance.now())));
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (const call of this.#live) {
      if (call.deadline > now) break;
      this.#live.delete(call);
      call.timedOut();
    }
    // A call started by what timedOut() ran has armed it already.
    if (this.#timer === undefined) this.#armForFirst();
  };
}
