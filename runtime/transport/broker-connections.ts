/**
 * The plugin side of go-plugin's GRPCBroker: the host announces, over the StartStream bidi stream,
 * where it serves each brokered service (ConnInfo per service id; the kernel's callbacks are ID 1).
 * The latest ConnInfo per ID is kept for the life of the process; a dialer waits for one, as
 * go-plugin's Dial does (5 s).
 */
import type { ConnInfo } from "../generated/plugin/grpc_broker_pb.js";

/** go-plugin's broker Dial waits this long for a ConnInfo. */
export const connInfoWaitMs = 5000;

interface Waiter {
  readonly serviceId: number;
  readonly settle: (error: Error | undefined, info?: ConnInfo) => void;
}

/** ConnInfo by service id, with waiters. */
export class BrokerConnections {
  readonly #latest = new Map<number, ConnInfo>();
  readonly #waiters = new Set<Waiter>();
  #closed: Error | undefined;

  /** Records what the host announced and wakes whoever waits for that ID. */
  record(info: ConnInfo): void {
    this.#latest.set(info.serviceId, info);
    for (const waiter of [...this.#waiters]) {
      if (waiter.serviceId === info.serviceId) waiter.settle(undefined, info);
    }
  }

  /** The latest ConnInfo for an ID, if the host sent one. */
  get(serviceId: number): ConnInfo | undefined {
    return this.#latest.get(serviceId);
  }

  /** The ConnInfo for an ID: the latest one, or the next within `timeoutMs`. */
  waitFor(serviceId: number, timeoutMs: number = connInfoWaitMs, signal?: AbortSignal): Promise<ConnInfo> {
    const known = this.#latest.get(serviceId);
    if (known) return Promise.resolve(known);
    if (this.#closed) return Promise.reject(this.#closed);
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<ConnInfo>((resolve, reject) => {
      const onAbort = () => waiter.settle(abortError(signal));
      const timer = setTimeout(
        () =>
          waiter.settle(
            new Error(`the host announced no broker connection for service id ${serviceId} within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      const waiter: Waiter = {
        serviceId,
        settle: (error, info) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.#waiters.delete(waiter);
          if (error) reject(error);
          else resolve(info as ConnInfo);
        },
      };
      this.#waiters.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Rejects every waiter and every later wait for an unknown ID: the broker stream is gone. */
  close(reason: Error): void {
    this.#closed = reason;
    for (const waiter of [...this.#waiters]) waiter.settle(reason);
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  return signal?.reason instanceof Error ? signal.reason : new Error("aborted");
}
