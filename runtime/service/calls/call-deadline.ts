/**
 * A host's deadline on Configure (grpc's, which the transport passes on), as the bound the runtime
 * puts on the configure hook: a tenth of the time left (at most 250 ms) is kept back, so the
 * refusal (a `timeout` ToolError saying what did not finish) reaches the host before its own
 * deadline does and it reads why, not a bare DEADLINE_EXCEEDED. docs/runtime.md#the-configure-hook.
 */

/** The most kept back from the host's deadline. */
const deadlineMarginMs = 250;

/** Milliseconds from now until the runtime answers a call whose host deadline is `deadline` (never negative). */
export function msBeforeDeadline(deadline: Date, now = Date.now()): number {
  const left = deadline.getTime() - now;
  return Math.max(0, Math.floor(left - Math.min(deadlineMarginMs, left / 10)));
}
