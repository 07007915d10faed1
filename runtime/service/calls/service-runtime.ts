/**
 * What every call of one ToolService shares: the provider, the accepted configuration, the
 * kernel connection and stderr (both behind their exits, secret-exits.ts), the concurrency gate, the live children and the
 * in-flight calls. Built by createToolService; read by invoke-in-flight.ts and the unary handlers.
 */
import type { KernelClient } from "../kernel/kernel-client.js";
import type { ProviderDefinition, ToolImplementation } from "../../provider/provider-definition.js";
import type { ConcurrencyGate } from "./concurrency-gate.js";
import type { DeadlineQueue } from "./deadline-queue.js";
import type { ChildRegistry } from "../process/spawn-child.js";

/** The configuration Configure accepted (or the defaults, when they decode on their own). */
export interface AcceptedConfig {
  readonly config: unknown;
  /** Prepared allowed roots; undefined when the provider declares no boundary. */
  readonly roots: readonly string[] | undefined;
}

/** One tool, with what its calls need precomputed. */
export interface ToolEntry {
  readonly implementation: ToolImplementation;
  readonly name: string;
  readonly streaming: boolean;
  readonly processBacked: boolean;
  /** The tool's default_timeout, enforced by the runtime too; undefined: none. */
  readonly timeoutMs: number | undefined;
}

/** Timings of the service, in milliseconds. */
export interface ServiceTimings {
  /** How long a stopped (cancelled, timed out, shut down) handler may take to settle and report. */
  readonly settleGraceMs: number;
  /** Between SIGTERM and SIGKILL of a child process. */
  readonly killGraceMs: number;
}

/** A call in flight, as the service sees it. */
export interface LiveCall {
  /** Stops the call for shutdown; `graceMs` bounds how long its handler may still take. */
  stopForShutdown(graceMs: number): void;
  /** Resolves when the call has ended. */
  readonly ended: Promise<void>;
}

/** The shared state of one service. */
export interface ServiceRuntime {
  readonly provider: ProviderDefinition<unknown>;
  readonly tools: ReadonlyMap<string, ToolEntry>;
  readonly timings: ServiceTimings;
  readonly gate: ConcurrencyGate;
  /** The calls' default timeouts, on one timer. */
  readonly deadlines: DeadlineQueue;
  readonly children: ChildRegistry;
  readonly calls: Set<LiveCall>;
  /** One diagnostic line, through the stderr exit. */
  readonly stderr: (line: string) => void;
  /** The kernel's callbacks through their exit; undefined until the transport has connected. */
  kernel(): KernelClient | undefined;
  accepted(): AcceptedConfig | undefined;
  shuttingDown(): boolean;
}
