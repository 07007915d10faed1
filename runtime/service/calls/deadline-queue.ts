/**
 * Many calls' timeouts on one timer. A setTimeout and clearTimeout per call were a measurable
 * share of a trivial call's CPU (bench/RESULTS.md, c=32 CPU cuts), and almost every call ends long
 * before its timeout. Calls with the same timeout wait in one lane, in arrival order, so a lane's
 * deadlines ascend and its first is its earliest; the one timer is armed for the earliest first
 * of all lanes. A call that ends leaves its lane at once (a Set: no search) and the timer stays as
 * it is: when it fires with nothing due it is re-armed for the earliest deadline still waiting.
 * The timer keeps the process alive only while some call is waiting, as a call's own timer did.
 */

import { longestDelayMs } from "./long-timeout.js";

/** One call's place in the queue. */
export interface Deadline {
  /** When it is due, performance.now() milliseconds. */
  readonly at: number;
}

interface Entry extends Deadline {
  readonly lane: Set<Entry>;
  readonly due: () => void;
}

/** The timeouts of calls, each `due` called once its milliseconds have passed unless cancelled first. */
export class DeadlineQueue {
  readonly #lanes = new Map<number, Set<Entry>>();
  readonly #now: () => number;
  #waiting = 0;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires; Infinity when it is not armed. */
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** How many deadlines are waiting. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Calls `due` once `ms` milliseconds have passed, unless cancel() comes first. */
  add(ms: number, due: () => void): Deadline {
    let lane = this.#lanes.get(ms);
    if (!lane) {
      lane = new Set();
      this.#lanes.set(ms, lane);
    }
    const entry: Entry = { at: this.#now() + ms, lane, due };
    lane.add(entry);
    if (this.#waiting++ === 0) this.#timer?.ref();
    if (entry.at < this.#timerAt) this.#arm(entry.at);
    return entry;
  }

  /** The call ended first: its `due` is not called. Idempotent. */
  cancel(deadline: Deadline): void {
    const entry = deadline as Entry;
    if (!entry.lane.delete(entry)) return;
    if (--this.#waiting === 0) this.#timer?.unref();
  }

  #arm(at: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    // Node's timers count whole milliseconds: rounded up, the timer never fires before `at`. A
    // delay past setTimeout's limit (about 24.8 days) would fire at once: it is armed at the limit,
    // fires with nothing due and is re-armed for what is left.
    const delay = Math.min(longestDelayMs, Math.max(1, Math.ceil(at - this.#now())));
    this.#timer = setTimeout(() => this.#fire(), delay);
    if (this.#waiting === 0) this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.#now();
    const due: Entry[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [ms, lane] of this.#lanes) {
      for (const entry of lane) {
        if (entry.at > now) {
          next = Math.min(next, entry.at);
          break;
        }
        lane.delete(entry);
        this.#waiting--;
        due.push(entry);
      }
      if (lane.size === 0) this.#lanes.delete(ms);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    due.sort((a, b) => a.at - b.at);
    for (const entry of due) entry.due();
  }
}
