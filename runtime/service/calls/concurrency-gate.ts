/**
 * The provider's own enforcement of ConcurrencySpec. The kernel already serializes calls by the
 * declared spec, so in normal operation this gate never waits; it protects the provider when calls
 * overlap anyway (a retry racing its cancelled predecessor whose handler is still winding down, a
 * second kernel, a test host). Decision (docs/runtime.md#concurrency): conflicting calls are
 * serialized, first come first served; `concurrency_conflict` is reported only when the holder is
 * an orphan, a call that already ended while its handler ignored cancellation and is still running,
 * because waiting behind it could last forever.
 *
 * The kernel's `pluggableharness.tool.v1.ConcurrencySpec`: safe = false is a provider-wide lock;
 * safe = true with key_fields serializes calls whose named input fields are equal; safe = true
 * alone never conflicts.
 * seed: kind interactive — interactive calls execute sequentially.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { quoteInput } from "../../errors/input-error-bounds.js";
import { ToolError } from "../../errors/tool-error.js";
import type { ToolDeclaration } from "../../schema/tool-declaration.js";

/** What a call needs to hold while its handler runs. */
export interface CallClaim {
  /** No other call may run beside this one (safe: false). */
  readonly exclusive: boolean;
  /** Calls sharing a key run one at a time. */
  readonly keys: readonly string[];
  /** For the conflict message: the tool and the call id (quoted only when a message names them). */
  readonly tool: string;
  readonly callId: string;
}

/** A granted claim. */
export interface GateLease {
  /** The handler settled: the claim is free. Idempotent. */
  release(): void;
  /** The call ended but its handler is still running: conflicting calls fail instead of waiting. */
  orphan(): void;
}

const interactiveLane = "\u0000interactive";

/**
 * The claim of one call. Keyed claims compare the named fields' values across every tool of the
 * provider, so write_file and edit_file keyed on `path` serialize each other on the same path.
 */
export function claimFor(declaration: ToolDeclaration, input: JsonObject, callId: string): CallClaim {
  const tool = declaration.name;
  if (declaration.kind === "interactive") return { exclusive: false, keys: [interactiveLane], tool, callId };
  const spec = declaration.concurrency;
  if (!spec?.safe) return { exclusive: true, keys: [], tool, callId };
  const fields = spec.keyFields ?? [];
  if (fields.length === 0) return { exclusive: false, keys: [], tool, callId };
  const key = JSON.stringify([...fields].sort().map((name) => [name, input[name] ?? null]));
  return { exclusive: false, keys: [key], tool, callId };
}

/** A claim's call as a message names it: the tool, then the call id quoted (bounded: input-error-bounds.ts). */
function labelOf(claim: CallClaim): string {
  return `${claim.tool} call ${quoteInput(claim.callId)}`;
}

interface Holder {
  readonly claim: CallClaim;
  orphaned: boolean;
  released: boolean;
}

/** A granted claim: the holder is its own lease, one object per call (no closures). */
class Lease implements Holder, GateLease {
  orphaned = false;
  released = false;
  readonly claim: CallClaim;
  readonly #gate: GateInternals;

  constructor(claim: CallClaim, gate: GateInternals) {
    this.claim = claim;
    this.#gate = gate;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.#gate.released(this);
  }

  orphan(): void {
    if (this.released || this.orphaned) return;
    this.orphaned = true;
    this.#gate.orphaned(this);
  }
}

/** What a lease tells its gate. */
interface GateInternals {
  released(holder: Holder): void;
  orphaned(holder: Holder): void;
}

interface Waiter {
  readonly claim: CallClaim;
  readonly resolve: (lease: GateLease) => void;
  readonly reject: (reason: unknown) => void;
  readonly detach: () => void;
}

function conflictError(claim: CallClaim, holder: Holder): ToolError {
  return new ToolError(
    "concurrency_conflict",
    `${labelOf(claim)} conflicts with ${labelOf(holder.claim)}, which was cancelled or timed out but whose handler is still running`,
    { retryable: true, details: { held_by: labelOf(holder.claim) } },
  );
}

/** In-process serialization of conflicting calls. */
export class ConcurrencyGate {
  readonly #byKey = new Map<string, Holder>();
  #exclusive: Holder | undefined;
  #holders = 0;
  readonly #orphans = new Set<Holder>();
  readonly #waiting: Waiter[] = [];

  /** How many calls currently hold a claim (orphans included). */
  get holders(): number {
    return this.#holders;
  }

  /**
   * Grants the claim now (a lease), or later (a promise). Rejects with a `concurrency_conflict`
   * ToolError when an orphan holds a conflicting claim, or with the signal's reason when it aborts
   * while waiting. The signal may be given lazily: it is only needed when the call has to wait.
   */
  acquire(claim: CallClaim, signalOf: AbortSignal | (() => AbortSignal)): GateLease | Promise<GateLease> {
    // Hot path: a claim-free call with nothing exclusive anywhere.
    if (!claim.exclusive && claim.keys.length === 0 && this.#exclusive === undefined && this.#waiting.length === 0) {
      return this.#grant(claim);
    }
    const blocker = this.#blocker(claim);
    if (blocker?.orphaned) throw conflictError(claim, blocker);
    if (!blocker && !this.#blockedByWaiters(claim, this.#waiting.length)) return this.#grant(claim);
    const signal = typeof signalOf === "function" ? signalOf() : signalOf;
    if (signal.aborted) throw signal.reason;
    return new Promise<GateLease>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#waiting.indexOf(waiter);
        if (i !== -1) this.#waiting.splice(i, 1);
        reject(signal.reason);
        this.#drain();
      };
      const waiter: Waiter = { claim, resolve, reject, detach: () => signal.removeEventListener("abort", onAbort) };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** The holder this claim conflicts with, preferring an orphan. */
  #blocker(claim: CallClaim): Holder | undefined {
    if (claim.exclusive) {
      if (this.#holders === 0) return undefined;
      for (const orphan of this.#orphans) return orphan;
      return (
        this.#exclusive ??
        this.#byKey.values().next().value ??
        ({ claim, orphaned: false, released: false } satisfies Holder)
      );
    }
    if (this.#exclusive) return this.#exclusive;
    let found: Holder | undefined;
    for (const key of claim.keys) {
      const holder = this.#byKey.get(key);
      if (holder?.orphaned) return holder;
      found ??= holder;
    }
    return found;
  }

  /** Whether an earlier waiter conflicts with this claim (first come, first served). */
  #blockedByWaiters(claim: CallClaim, before: number): boolean {
    for (let i = 0; i < before; i++) {
      const other = this.#waiting[i]!.claim;
      if (claim.exclusive || other.exclusive || other.keys.some((k) => claim.keys.includes(k))) return true;
    }
    return false;
  }

  /** The gate's side of its leases, built once per gate. */
  readonly #internals: GateInternals = {
    released: (holder) => {
      this.#holders--;
      if (this.#exclusive === holder) this.#exclusive = undefined;
      for (const key of holder.claim.keys) if (this.#byKey.get(key) === holder) this.#byKey.delete(key);
      if (this.#orphans.size > 0) this.#orphans.delete(holder);
      if (this.#waiting.length > 0) this.#drain();
    },
    orphaned: (holder) => {
      this.#orphans.add(holder);
      this.#drain();
    },
  };

  #grant(claim: CallClaim): GateLease {
    const holder = new Lease(claim, this.#internals);
    this.#holders++;
    if (claim.exclusive) this.#exclusive = holder;
    for (const key of claim.keys) this.#byKey.set(key, holder);
    return holder;
  }

  /** Grants, in order, every waiter that no longer conflicts; fails those stuck behind an orphan. */
  #drain(): void {
    for (let i = 0; i < this.#waiting.length; ) {
      const waiter = this.#waiting[i]!;
      const blocker = this.#blocker(waiter.claim);
      if (blocker?.orphaned) {
        this.#waiting.splice(i, 1);
        waiter.detach();
        waiter.reject(conflictError(waiter.claim, blocker));
        continue;
      }
      if (!blocker && !this.#blockedByWaiters(waiter.claim, i)) {
        this.#waiting.splice(i, 1);
        waiter.detach();
        waiter.resolve(this.#grant(waiter.claim));
        continue;
      }
      i++;
    }
  }
}
