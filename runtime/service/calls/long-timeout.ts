/**
 * setTimeout for any delay. Node's setTimeout takes at most 2^31 − 1 ms (about 24.8 days): a longer
 * delay fires after 1 ms (with a TimeoutOverflowWarning), so a tool's 30-day default timeout or a
 * host's far deadline would end the call at once. This waits in steps of at most that limit until
 * the whole delay has passed; a delay that is not finite never fires.
 */

/** The longest delay one setTimeout takes (the transport's node-grpc room keeps its own copy). */
export const longestDelayMs = 2_147_483_647;

/** A pending long timeout. */
export interface LongTimeout {
  /** The callback is not called. Idempotent. */
  clear(): void;
}

/** Calls `callback` once `ms` milliseconds have passed, unless cleared first. */
export function setLongTimeout(callback: () => void, ms: number, stepMs = longestDelayMs): LongTimeout {
  let timer: NodeJS.Timeout | undefined;
  if (Number.isFinite(ms)) {
    const due = performance.now() + ms;
    const arm = (left: number): void => {
      timer = setTimeout(
        () => {
          const rest = due - performance.now();
          if (rest > 0 && left > stepMs) arm(rest);
          else callback();
        },
        Math.min(left, stepMs),
      );
    };
    arm(ms);
  }
  return { clear: () => clearTimeout(timer) };
}
