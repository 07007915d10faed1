/**
 * The events of one Invoke on their way to the transport, with flow control: events go to the
 * sink in order while it has room; once it asks to wait (the kernel reads slower than the call
 * produces), they queue here, consecutive output of one stream merged into chunks of at most
 * `maxOutputChunkBytes`, until the sink drains. Producers (a child's pipes, a handler awaiting
 * its emits) ask `room()` and wait while more than one open chunk is queued, so a slow kernel
 * slows them down instead of growing the heap.
 *
 * seed: Invoke — output_chunk ordering within a stream MUST be preserved (every event keeps its
 * place: only adjacent output of the same stream is merged).
 */
import { create } from "@bufbuild/protobuf";
import {
  InvokeResponseSchema,
  type OutputStream,
  type ToolEvent,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import type { InvokeSink } from "./tool-service-core.js";

/**
 * The largest output_chunk a provider sends, in bytes of data. A child's reads are merged up to
 * it while the kernel lags, and anything longer (a big `ctx.output()`, a redacted chunk grown by
 * its markers) is split at it. 64 KiB: a pipe's capacity on Linux and libuv's read size, far below
 * gRPC's 4 MiB default message limit.
 */
export const maxOutputChunkBytes = 64 * 1024;

type EventInit = Exclude<ToolEvent["event"], { case: undefined }>;

/** Output of one stream, waiting to go out as one chunk. */
interface QueuedOutput {
  readonly stream: OutputStream;
  readonly parts: Uint8Array[];
  bytes: number;
}

type Queued = { readonly output: QueuedOutput } | { readonly event: EventInit };

const resolved: Promise<void> = Promise.resolve();

function joined(output: QueuedOutput): Uint8Array {
  if (output.parts.length === 1) return output.parts[0] as Uint8Array;
  return Buffer.concat(output.parts, output.bytes);
}

/** One call's outgoing events. */
export class InvokeOutbox {
  readonly #sink: InvokeSink;
  readonly #onSendError: (error: unknown) => void;
  readonly #queue: Queued[] = [];
  /** False after the sink's send asked to wait, until its drained() resolves. */
  #writable = true;
  #awaitingDrain = false;
  /**
   * The kernel cancelled the stream: nothing waits any more, and what the handler still emits is
   * passed on at once (best effort, seed: a final output_chunk/partial_result; the transport drops it).
   */
  #cancelled = false;
  #roomWaiter: { promise: Promise<void>; resolve: () => void } | undefined;
  #flushWaiter: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(sink: InvokeSink, onSendError: (error: unknown) => void) {
    this.#sink = sink;
    this.#onSendError = onSendError;
    if (sink.cancelled.aborted) this.#cancelled = true;
    else sink.cancelled.addEventListener("abort", () => this.#onCancelled(), { once: true });
  }

  /** Queues an event behind everything before it and sends what the sink takes. */
  event(event: EventInit): void {
    this.#queue.push({ event });
    this.#pump();
  }

  /** Queues output bytes (already redacted): merged with the queued tail of the same stream, split at the limit. */
  output(stream: OutputStream, data: Uint8Array): void {
    if (data.byteLength === 0) return;
    let offset = 0;
    while (offset < data.byteLength) {
      const last = this.#queue.at(-1);
      const open =
        last && "output" in last && last.output.stream === stream && last.output.bytes < maxOutputChunkBytes
          ? last.output
          : undefined;
      const take = Math.min(maxOutputChunkBytes - (open?.bytes ?? 0), data.byteLength - offset);
      const part = offset === 0 && take === data.byteLength ? data : data.subarray(offset, offset + take);
      if (open) {
        open.parts.push(part);
        open.bytes += take;
      } else this.#queue.push({ output: { stream, parts: [part], bytes: take } });
      offset += take;
    }
    this.#pump();
  }

  /**
   * True while a producer may go on: the sink has room, or all that waits is one chunk of output
   * still below the limit (so a child's reads merge into it).
   */
  get hasRoom(): boolean {
    if (this.#cancelled || this.#queue.length === 0) return true;
    if (this.#queue.length > 1) return false;
    const only = this.#queue[0] as Queued;
    return "output" in only && only.output.bytes < maxOutputChunkBytes;
  }

  /** Resolves once `hasRoom` holds (at once when it does). */
  room(): Promise<void> {
    if (this.hasRoom) return resolved;
    this.#roomWaiter ??= withResolver();
    return this.#roomWaiter.promise;
  }

  /** Resolves once every queued event was handed to the sink (at once after a cancellation). */
  flushed(): Promise<void> {
    if (this.#queue.length === 0) return resolved;
    this.#flushWaiter ??= withResolver();
    return this.#flushWaiter.promise;
  }

  #pump(): void {
    while ((this.#writable || this.#cancelled) && this.#queue.length > 0) {
      const next = this.#queue.shift() as Queued;
      const event: EventInit =
        "event" in next
          ? next.event
          : ({ case: "outputChunk", value: { stream: next.output.stream, data: joined(next.output) } } as EventInit);
      let accepted: boolean | void = true;
      try {
        accepted = this.#sink.send(create(InvokeResponseSchema, { event: { event } }));
      } catch (error) {
        this.#onSendError(error);
      }
      if (accepted === false) this.#writable = false;
    }
    if (!this.#writable && !this.#awaitingDrain && !this.#cancelled) this.#awaitDrain();
    this.#wake();
  }

  #awaitDrain(): void {
    const drained = this.#sink.drained;
    if (!drained) {
      // A sink that says "wait" but cannot say when: treat it as always writable.
      this.#writable = true;
      return;
    }
    this.#awaitingDrain = true;
    drained.call(this.#sink).then(
      () => this.#onDrained(),
      () => this.#onDrained(),
    );
  }

  #onDrained(): void {
    this.#awaitingDrain = false;
    this.#writable = true;
    this.#pump();
  }

  #onCancelled(): void {
    this.#cancelled = true;
    this.#pump();
  }

  #wake(): void {
    if (this.#roomWaiter && this.hasRoom) {
      const { resolve } = this.#roomWaiter;
      this.#roomWaiter = undefined;
      resolve();
    }
    if (this.#flushWaiter && this.#queue.length === 0) {
      const { resolve } = this.#flushWaiter;
      this.#flushWaiter = undefined;
      resolve();
    }
  }
}

function withResolver(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
