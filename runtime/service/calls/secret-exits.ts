/**
 * The exits of one ToolService. Everything the service sends leaves through one of four doors,
 * and each door redacts the configured secrets at exactly one point:
 *
 * - Invoke: every event on the stream (`invoke(sink)` wraps the transport's sink once per call,
 *   refusals included); output chunks through one stream redactor per output stream, so a secret
 *   split across chunks (the outbox merges and splits at 64 KiB) is still found, whatever events
 *   (exit_status, progress, partial results) come between the chunks.
 * - Unary: Configure, Preview and Render responses, and every failure as a status whose message
 *   and ToolError (the transport packs it into grpc-status-details-bin) are redacted.
 * - stderr: every diagnostic line of the service (`stderr(write)`); `text()` gives the transport
 *   the same redaction for the lines it writes itself (runtime/transport/host-log.ts).
 * - Kernel callbacks: every request to KernelCallbackService (`kernel(client)`).
 *
 * The HookSubscriberService (runtime/service/hooks) shares these exits: a failed hook call's
 * message and HookError message through `text`, a transform's messages through `response`, its
 * handlers' Log and Emit through `kernel`.
 *
 * Handlers and the rest of runtime/service never redact; this is the only file there that holds
 * the redactor (test/structure.test.ts enforces it). docs/runtime.md#exits.
 *
 * seed: Configure — a plugin MUST NOT echo a received secret into an Emit'd event, Render output,
 * log line, or error message.
 */
import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import {
  CountTokensRequestSchema,
  EmitRequestSchema,
  LogRequestSchema,
  RunSessionRequestSchema,
} from "../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import {
  InvokeResponseSchema,
  type OutputStream,
  ToolErrorSchema,
  type InvokeResponse,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { RpcStatusError } from "../../errors/rpc-status-error.js";
import type { NormalizeErrorOptions } from "../../errors/classify-error.js";
import { maxOutputChunkBytes } from "./invoke-outbox.js";
import type { KernelClient } from "../kernel/kernel-client.js";
import { createRedactor, type SecretRedactor, type StreamRedactor } from "../../redaction/redact-secrets.js";
import type { InvokeSink } from "./tool-service-core.js";
import { unaryFailure } from "../../errors/unary-failure.js";

/** The Invoke exit of one call: an InvokeSink in front of the transport's. */
export interface InvokeExit extends InvokeSink {
  /** Sends what the stream redactors still hold back; call once the call has sent everything. */
  end(): void;
}

/** The exits of one service, sharing the secrets Configure accepted. */
export class SecretExits {
  readonly #secrets = new Set<string>();
  #redactor: SecretRedactor = createRedactor([]);

  /** Adds secrets: from now on every exit redacts them too (secrets already known stay). */
  learn(secrets: Iterable<string>): void {
    let added = false;
    for (const secret of secrets) {
      if (secret === "" || this.#secrets.has(secret)) continue;
      this.#secrets.add(secret);
      added = true;
    }
    if (added) this.#redactor = createRedactor(this.#secrets);
  }

  /** The redactor in force: it changes when Configure adds secrets. */
  get redactor(): SecretRedactor {
    return this.#redactor;
  }

  /** Text as it may leave the process: for the lines the transport writes to stderr itself. */
  text(text: string): string {
    return this.#redactor.string(text);
  }

  /** The stderr exit: `write` receives every line redacted. */
  stderr(write: (line: string) => void): (line: string) => void {
    return (line) => write(this.#redactor.string(line));
  }

  /** The unary exit for a response. */
  response<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): MessageShape<Desc> {
    return this.#redactor.message(schema, message);
  }

  /** The unary exit for a failure: whatever was thrown, as a status with message and ToolError redacted. */
  status(thrown: unknown, options: NormalizeErrorOptions): RpcStatusError {
    const status = unaryFailure(thrown, options);
    const redactor = this.#redactor;
    if (!redactor.active) return status;
    return new RpcStatusError(
      status.code,
      redactor.string(status.message),
      status.toolError && redactor.message(ToolErrorSchema, status.toolError),
    );
  }

  /** Runs a unary method behind the unary exit: its response redacted, its failure a redacted status. */
  async unary<Desc extends DescMessage>(
    schema: Desc,
    options: NormalizeErrorOptions,
    run: () => Promise<MessageShape<Desc>>,
  ): Promise<MessageShape<Desc>> {
    let response: MessageShape<Desc>;
    try {
      response = await run();
    } catch (thrown) {
      throw this.status(thrown, options);
    }
    return this.response(schema, response);
  }

  /** The Invoke exit for one call. */
  invoke(sink: InvokeSink): InvokeExit {
    return new RedactingInvokeSink(sink, this);
  }

  /** The kernel-callback exit: a client whose every request is redacted (undefined while there is no kernel). */
  kernel(client: () => KernelClient | undefined): () => KernelClient | undefined {
    let wrapped: { inner: KernelClient; outer: KernelClient } | undefined;
    return () => {
      const inner = client();
      if (!inner) return undefined;
      if (wrapped?.inner !== inner) wrapped = { inner, outer: this.#kernelExit(inner) };
      return wrapped.outer;
    };
  }

  #kernelExit(inner: KernelClient): KernelClient {
    return {
      // Trace headers pass as they are: span ids the runtime made and the kernel's own trace state.
      log: (request, trace) => inner.log(this.#redactor.message(LogRequestSchema, request), trace),
      emit: (request, trace) => inner.emit(this.#redactor.message(EmitRequestSchema, request), trace),
      runSession: (request, signal, trace) =>
        inner.runSession(this.#redactor.message(RunSessionRequestSchema, request), signal, trace),
      countTokens: (request, signal, trace) =>
        inner.countTokens(this.#redactor.message(CountTokensRequestSchema, request), signal, trace),
    };
  }
}

/** One output chunk event. */
function outputChunk(stream: OutputStream, data: Uint8Array): InvokeResponse {
  return create(InvokeResponseSchema, { event: { event: { case: "outputChunk", value: { stream, data } } } });
}

class RedactingInvokeSink implements InvokeExit {
  readonly cancelled: InvokeSink["cancelled"];
  drained?: () => Promise<void>;
  readonly #sink: InvokeSink;
  readonly #exits: SecretExits;
  /** One per output stream, created at its first chunk once there are secrets (most calls never need one). */
  #streams: Map<OutputStream, { readonly redactor: SecretRedactor; readonly tail: StreamRedactor }> | undefined;

  constructor(sink: InvokeSink, exits: SecretExits) {
    this.#sink = sink;
    this.#exits = exits;
    this.cancelled = sink.cancelled;
    // Only a sink that can say when it drains gets asked (the outbox treats the others as always writable).
    if (sink.drained) this.drained = () => (sink.drained as () => Promise<void>).call(sink);
  }

  send(response: InvokeResponse): boolean | void {
    const redactor = this.#exits.redactor;
    if (!redactor.active && this.#streams === undefined) return this.#sink.send(response);
    const event = response.event?.event;
    if (event?.case === "outputChunk") {
      const { stream, data } = event.value;
      const streams = (this.#streams ??= new Map());
      const open = streams.get(stream);
      if (open?.redactor === redactor) return this.#sendOutput(stream, open.tail.push(data));
      // Configure added secrets mid-call: what the old redactor held back goes through the new one.
      const tail = redactor.stream();
      streams.set(stream, { redactor, tail });
      return this.#sendOutput(stream, tail.push(open ? Buffer.concat([open.tail.flush(), data]) : data));
    }
    // What a stream redactor holds back (only a tail that could begin a secret) waits across
    // exit_status, progress and partial results for the stream's next chunk, which may complete
    // the secret; it goes out before the terminal event, or when the call ends.
    let wait = false;
    if (event?.case === "result" || event?.case === "error") wait = this.#flush();
    return !(this.#sink.send(redactor.message(InvokeResponseSchema, response)) === false || wait);
  }

  end(): void {
    this.#flush();
  }

  /** Sends every held-back tail; true when the sink asked to wait. */
  #flush(): boolean {
    let wait = false;
    const streams = this.#streams;
    if (!streams) return wait;
    for (const [stream, { tail }] of streams) {
      streams.delete(stream);
      if (this.#sendOutput(stream, tail.flush()) === false) wait = true;
    }
    return wait;
  }

  /** Sends redacted output, split at the chunk limit (a marker may have made it longer). */
  #sendOutput(stream: OutputStream, data: Uint8Array): boolean {
    let wait = false;
    for (let offset = 0; offset < data.byteLength; offset += maxOutputChunkBytes) {
      const part =
        offset === 0 && data.byteLength <= maxOutputChunkBytes
          ? data
          : data.subarray(offset, offset + maxOutputChunkBytes);
      if (this.#sink.send(outputChunk(stream, part)) === false) wait = true;
    }
    return !wait;
  }
}
