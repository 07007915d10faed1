/**
 * How a served provider ends: every trigger (Shutdown, the broker stream ending, the parent gone,
 * SIGTERM, stderr closed) leads to one orderly stop: no new connection, in-flight calls get the
 * grace, the kernel's answers to callbacks still in flight are awaited (briefly), then `exit` is
 * called once with the socket file removed, well inside the host's 2 s, and the streams, the kernel
 * client and the server close (with the process, when the exit ends it).
 */
import type { ToolServiceCore } from "../service/calls/tool-service-core.js";
import type { BrokerConnections } from "./broker-connections.js";
import type { BrokerKernelClient } from "./broker-kernel-client.js";
import { hostLog } from "./host-log.js";
import type { Listening } from "./listen.js";
import { nghttp2StreamResetLimit, raiseStreamResetLimit, StreamResetBudget } from "./stream-reset-limit.js";

/**
 * Why the provider is going away. "stream-reset-limit": the broker stream ended because nghttp2
 * ended the host's HTTP/2 session after a burst of cancelled calls; only where the provider can
 * neither raise that limit (Node < 22.10) nor retire connections before it (see
 * stream-reset-limit.ts), and only with a host whose client destroys a session on GOAWAY.
 */
export type ShutdownReason =
  | "shutdown-rpc"
  | "broker-closed"
  | "stream-reset-limit"
  | "parent-gone"
  | "sigterm"
  | "stderr-closed";

/** After the grace, this much more for closing the server before exiting regardless. */
const closeMarginMs = 300;

/**
 * How long a stop waits, after the calls ended, for the kernel to answer the callbacks still in
 * flight (a handler's last `ctx.log` lines, sent without being awaited); inside the host's 2 s.
 */
export const kernelSettleMs = 400;

/** What a ProviderLife closes when it stops. */
export interface ProviderLifeParts {
  /** grpc-js's Server or a ProviderServer (provider-server.ts): what a stop closes. */
  readonly server: {
    unbind(target: string): void;
    forceShutdown(): void;
    /** Set by a ProviderServer; else the limit is raised on grpc-js's server here. */
    readonly resetLimitRaised?: boolean;
  };
  readonly core: ToolServiceCore;
  readonly kernel: BrokerKernelClient;
  readonly broker: BrokerConnections;
  readonly stdout: { readonly flush: () => void };
  readonly exit: (code: number) => void;
  /** How long in-flight calls get to finish after a stop. */
  readonly graceMs: number;
}

/**
 * Runs `close` with stack traces of no frames. Destroying the host's HTTP/2 sessions makes Node
 * build an error for every stream still open (the broker and stdio streams always are) and read its
 * `stack` at once; with source maps on (`harness-tool bundle`'s dist/provider.mjs turns them on)
 * the first stack a process formats parses the bundle's whole source map: ~100 ms of CPU and
 * garbage between the host's Shutdown and the exit (bench/RESULTS.md, start-up, Kill() → exit).
 * Nobody sees these errors; with no frames Node formats them without the map.
 */
export function closeWithoutStacks(close: () => void): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    close();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The one stop of a served provider, whatever triggers it. */
export class ProviderLife {
  /** Streams kept open for the life of the process (broker, stdio), ended on stop. */
  readonly openStreams = new Set<{ end: () => void }>();
  /**
   * A mirror of nghttp2's stream-reset limit, kept only where the provider can neither raise it
   * (Node >= 22.10 can) nor retire connections before it: it names the cause should the host's
   * connection end after a burst of cancelled calls.
   */
  resetBudget: StreamResetBudget | undefined;
  /** Where the server listens, once it does. */
  listening: Listening | undefined;
  /** Resolves with the exit code once `exit` was called. */
  readonly done: Promise<number>;
  readonly #parts: ProviderLifeParts;
  #stopping: Promise<number> | undefined;
  #exited = false;
  #resolveDone: (code: number) => void = () => {};

  constructor(parts: ProviderLifeParts) {
    this.#parts = parts;
    const raised = parts.server.resetLimitRaised ?? raiseStreamResetLimit(parts.server);
    this.resetBudget = raised ? undefined : new StreamResetBudget();
    this.done = new Promise<number>((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  /** True once a stop began: health answers NOT_SERVING from then on. */
  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  /** Stops the provider (once; later triggers share the first stop). */
  stop(trigger: ShutdownReason): Promise<number> {
    this.#stopping ??= this.#stop(trigger);
    return this.#stopping;
  }

  /** Calls `exit` once, after removing the socket file and flushing what stdout's guard holds. */
  finish(code: number): number {
    if (this.#exited) return code;
    this.#exited = true;
    this.listening?.cleanup();
    this.#parts.stdout.flush();
    this.#resolveDone(code);
    this.#parts.exit(code);
    return code;
  }

  async #stop(trigger: ShutdownReason): Promise<number> {
    const { server, core, kernel, broker, graceMs } = this.#parts;
    // A stop that waits (the calls' grace, the children's kill, the kernel's answers) first closes
    // the door: no new connection is accepted, a host reconnecting meets a closed socket
    // (UNAVAILABLE at once) rather than a provider on its way out. One with nothing to wait for
    // exits before any connection could come in (the closes after the exit end the listener when
    // the exit returns) and skips it: unbinding also closes the host's sessions gracefully, most of
    // a millisecond of every idle Kill().
    const waits = (core.busy?.() ?? true) || kernel.busy();
    if (waits && this.listening) {
      try {
        server.unbind(this.listening.target);
      } catch {
        // Not bound any more.
      }
    }
    const reason = this.#reasonFor(trigger);
    hostLog("debug", "provider shutting down", { reason });
    const hardStop = setTimeout(() => this.finish(0), graceMs + closeMarginMs);
    try {
      await core.shutdown(graceMs);
    } catch (error) {
      hostLog("error", "ToolService shutdown failed", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
    clearTimeout(hardStop);
    await kernel.settle(kernelSettleMs);
    // Nothing is left to wait for: the exit comes first. process.exit (with the supervisor told at
    // once) ends the streams, channels and server with the process, without a loop turn for their
    // teardown; an exit that returns (a test's, or one that flushes spans first) gets them closed here.
    const code = this.finish(0);
    for (const stream of this.openStreams) stream.end();
    kernel.close();
    broker.close(new Error("the provider is shutting down"));
    closeWithoutStacks(() => server.forceShutdown());
    return code;
  }

  /** The reason to log: a broker stream ended by nghttp2's reset limit is named as such. */
  #reasonFor(trigger: ShutdownReason): ShutdownReason {
    const budget = this.resetBudget;
    if (trigger !== "broker-closed" || !budget?.exhausted) return trigger;
    hostLog(
      "error",
      `the host's connection ended after ${budget.resets} cancelled calls: nghttp2 ends an HTTP/2 session past a burst of ${nghttp2StreamResetLimit.burst} stream resets (refilled at ${nghttp2StreamResetLimit.ratePerSecond}/s), and this provider can neither raise that limit (Node ${process.versions.node}; >= 22.10 can) nor retire connections before it (grpc-js keeps its HTTP/2 servers elsewhere than 1.14 did); the broker stream is gone with it, so the provider exits for the host to start it again`,
      { cancelledCalls: budget.resets },
    );
    return "stream-reset-limit";
  }
}
