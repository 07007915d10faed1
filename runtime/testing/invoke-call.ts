/**
 * One Invoke as the test host sees it: the ToolEvents as an async iterable, a way to cancel
 * mid-stream (as the kernel does, by cancelling the RPC), and how the stream ended.
 */
import type { ClientReadableStream, ServiceError } from "@grpc/grpc-js";
import { status as grpcStatus } from "@grpc/grpc-js";
import type { InvokeResponse, ToolEvent } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { ProviderCallError } from "./provider-call-error.js";

/** How an Invoke stream ended. */
export interface InvokeOutcome {
  readonly events: readonly ToolEvent[];
  /** The gRPC status: OK (0) when the provider closed the stream, CANCELLED (1) after cancel(). */
  readonly code: number;
  readonly details: string;
  /** True when the test cancelled the call. */
  readonly cancelled: boolean;
}

/** A running Invoke. Iterating yields events until the stream closes; a non-OK status throws. */
export class InvokeCall implements AsyncIterable<ToolEvent> {
  readonly #stream: ClientReadableStream<InvokeResponse>;
  readonly #events: ToolEvent[] = [];
  readonly #wakers = new Set<() => void>();
  #cancelled = false;
  #ended: InvokeOutcome | undefined;
  /** Resolves when the stream has ended, however it ended. */
  readonly done: Promise<InvokeOutcome>;

  constructor(stream: ClientReadableStream<InvokeResponse>) {
    this.#stream = stream;
    this.done = new Promise((resolve) => {
      stream.on("data", (response: InvokeResponse) => {
        if (response.event) this.#events.push(response.event);
        this.#wake();
      });
      stream.on("status", (status: { code: number; details: string }) => {
        this.#ended ??= { events: this.#events, code: status.code, details: status.details, cancelled: this.#cancelled };
        this.#wake();
        resolve(this.#ended);
      });
      stream.on("error", (error: ServiceError) => {
        this.#ended ??= { events: this.#events, code: error.code ?? grpcStatus.UNKNOWN, details: error.details ?? error.message, cancelled: this.#cancelled };
        this.#wake();
        resolve(this.#ended);
      });
    });
  }

  /** The events received so far. */
  get events(): readonly ToolEvent[] {
    return this.#events;
  }

  /** Cancels the RPC, as the kernel does when it abandons a call. */
  cancel(): void {
    this.#cancelled = true;
    this.#stream.cancel();
  }

  /** Waits until `count` events have arrived (or the stream ended first). */
  async waitForEvents(count: number): Promise<readonly ToolEvent[]> {
    while (this.#events.length < count && !this.#ended) await new Promise<void>((wake) => this.#wakers.add(wake));
    return this.#events;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ToolEvent> {
    let next = 0;
    for (;;) {
      if (next < this.#events.length) {
        yield this.#events[next++] as ToolEvent;
        continue;
      }
      if (this.#ended) {
        const { code, details, cancelled } = this.#ended;
        if (code !== grpcStatus.OK && !(cancelled && code === grpcStatus.CANCELLED)) {
          throw new ProviderCallError("Invoke", code, details);
        }
        return;
      }
      await new Promise<void>((wake) => this.#wakers.add(wake));
    }
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) {
      this.#wakers.delete(wake);
      wake();
    }
  }
}
