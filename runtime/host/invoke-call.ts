/**
 * One Invoke as the host sees it: the ToolEvents as an async iterable, a way to cancel
 * mid-stream (as the kernel does, by cancelling the RPC), and how the stream ended. On request it
 * reads like a slow kernel (a pause after every event, so HTTP/2 flow control pushes back on the
 * provider) and keeps only a digest of the output instead of every chunk, for streams too big to hold.
 */
import { createHash, type Hash } from "node:crypto";
import type { ClientReadableStream, ServiceError } from "@grpc/grpc-js";
import { status as grpcStatus } from "@grpc/grpc-js";
import { OutputStream, type InvokeResponse, type ToolEvent } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { ProviderCallError } from "./provider-call-error.js";

/** How the host reads one Invoke stream. */
export interface InvokeReadOptions {
  /** Pause this long after each event before reading the next: a kernel that reads slowly. Default 0. */
  readonly readDelayMs?: number;
  /**
   * Keep the output_chunk events in `events` (default true). False: they are only counted into
   * `outputDigest`, so a stream of gigabytes costs the host no memory.
   */
  readonly keepOutputChunks?: boolean;
}

/** What arrived on one output stream. */
export interface OutputStreamDigest {
  readonly bytes: number;
  /** SHA-256 of the stream's bytes in arrival order, hex. */
  readonly sha256: string;
}

/** Every output_chunk of a call, summed up. */
export interface OutputDigest {
  readonly stdout: OutputStreamDigest;
  readonly stderr: OutputStreamDigest;
  readonly chunks: number;
  /** The largest chunk's data, in bytes. */
  readonly largestChunk: number;
}

/** How an Invoke stream ended. */
export interface InvokeOutcome {
  /** The events in order (without output chunks when `keepOutputChunks` was false). */
  readonly events: readonly ToolEvent[];
  readonly outputDigest: OutputDigest;
  /** The gRPC status: OK (0) when the provider closed the stream, CANCELLED (1) after cancel(). */
  readonly code: number;
  readonly details: string;
  /** True when the host cancelled the call. */
  readonly cancelled: boolean;
}

/** Running SHA-256 and byte count of one output stream. */
class StreamDigest {
  readonly #hash: Hash = createHash("sha256");
  bytes = 0;
  add(data: Uint8Array): void {
    this.#hash.update(data);
    this.bytes += data.byteLength;
  }
  digest(): OutputStreamDigest {
    return { bytes: this.bytes, sha256: this.#hash.copy().digest("hex") };
  }
}

/** A running Invoke. Iterating yields events until the stream closes; a non-OK status throws. */
export class InvokeCall implements AsyncIterable<ToolEvent> {
  readonly #stream: ClientReadableStream<InvokeResponse>;
  readonly #events: ToolEvent[] = [];
  readonly #wakers = new Set<() => void>();
  readonly #stdout = new StreamDigest();
  readonly #stderr = new StreamDigest();
  #chunks = 0;
  /** Every event read, output chunks included even when they are not kept. */
  #received = 0;
  #largestChunk = 0;
  #cancelled = false;
  #ended: InvokeOutcome | undefined;
  /** Resolves when the stream has ended and every event was read, however it ended. */
  readonly done: Promise<InvokeOutcome>;

  constructor(stream: ClientReadableStream<InvokeResponse>, options: InvokeReadOptions = {}) {
    this.#stream = stream;
    const delayMs = options.readDelayMs ?? 0;
    const keepOutput = options.keepOutputChunks ?? true;
    this.done = new Promise((resolve) => {
      let status: { code: number; details: string } | undefined;
      let drained = false;
      // The status can come while read events still wait in a paused stream: the outcome is
      // final once both the status and the stream's end are in.
      const settle = () => {
        if (!status || !drained) return;
        this.#ended ??= {
          events: this.#events,
          outputDigest: this.outputDigest,
          code: status.code,
          details: status.details,
          cancelled: this.#cancelled,
        };
        this.#wake();
        resolve(this.#ended);
      };
      stream.on("data", (response: InvokeResponse) => {
        const event = response.event;
        this.#received++;
        if (event?.event.case === "outputChunk") {
          const { stream: which, data } = event.event.value;
          (which === OutputStream.STDERR ? this.#stderr : this.#stdout).add(data);
          this.#chunks++;
          this.#largestChunk = Math.max(this.#largestChunk, data.byteLength);
          if (keepOutput) this.#events.push(event);
        } else if (event) this.#events.push(event);
        this.#wake();
        if (delayMs > 0) {
          stream.pause();
          setTimeout(() => stream.resume(), delayMs);
        }
      });
      stream.on("status", (received: { code: number; details: string }) => {
        status ??= received;
        settle();
      });
      stream.on("error", (error: ServiceError) => {
        status ??= { code: error.code ?? grpcStatus.UNKNOWN, details: error.details ?? error.message };
        settle();
      });
      const ended = () => {
        drained = true;
        settle();
      };
      stream.on("end", ended);
      stream.on("close", ended);
    });
  }

  /** The events received so far. */
  get events(): readonly ToolEvent[] {
    return this.#events;
  }

  /** What the output chunks received so far add up to. */
  get outputDigest(): OutputDigest {
    return {
      stdout: this.#stdout.digest(),
      stderr: this.#stderr.digest(),
      chunks: this.#chunks,
      largestChunk: this.#largestChunk,
    };
  }

  /** Cancels the RPC, as the kernel does when it abandons a call. */
  cancel(): void {
    this.#cancelled = true;
    this.#stream.cancel();
  }

  /**
   * Waits until `count` events have arrived (or the stream ended first); output chunks count even
   * when they are not kept.
   */
  async waitForEvents(count: number): Promise<readonly ToolEvent[]> {
    while (this.#received < count && !this.#ended) await new Promise<void>((wake) => this.#wakers.add(wake));
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
