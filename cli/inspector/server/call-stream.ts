/**
 * A call's events on their way to the page: output chunks decoded, redacted as a stream (a secret
 * split across chunks is caught), kept up to a limit and joined into batches; every other event as
 * the page shows it, after the output held before it.
 */
import type { ToolEvent, ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { jsonSchemaFromWire, validateValue, type JsonSchema } from "harness-tool/schema";
import type { SecretRedactor } from "harness-tool/redaction";
import { categoryName } from "../../terminal/wire-names.js";
import type { CallEventView, Json } from "../protocol/page-protocol.js";
import { OutputBatcher } from "./output-batcher.js";

/** Output text kept (and shown) per call; the rest is counted, not kept. */
export const outputLimitBytes = 1024 * 1024;
/** Output chunks arriving within this many milliseconds reach the page as one event. */
export const outputBatchMs = 25;

type StreamName = "stdout" | "stderr";

/** What the page shows for a ToolEvent other than output (output is batched and redacted apart). */
export function callEventView(event: ToolEvent, schema: ToolSchema | undefined): CallEventView | undefined {
  const e = event.event;
  switch (e.case) {
    case "progress":
      return {
        type: "progress",
        message: e.value.message,
        ...(e.value.fractionComplete !== undefined ? { fraction: e.value.fractionComplete } : {}),
      };
    case "partialResult":
      return { type: "partial", payload: (e.value.payload ?? {}) as Json };
    case "exitStatus":
      return {
        type: "exit",
        exitCode: e.value.exitCode,
        ...(e.value.signal !== undefined ? { signal: e.value.signal } : {}),
      };
    case "result": {
      const payload = e.value.payload ?? {};
      const violations = schema?.outputSchema
        ? validateValue(jsonSchemaFromWire(schema.outputSchema) as unknown as JsonSchema, payload)
        : [];
      return {
        type: "result",
        payload: payload as Json,
        violations: violations.map((v) => ({ path: v.path, message: v.message })),
      };
    }
    case "error":
      return {
        type: "error",
        category: categoryName(e.value.category),
        message: e.value.message,
        retryable: e.value.retryable,
        ...(e.value.details ? { details: e.value.details as Json } : {}),
      };
    default:
      return undefined;
  }
}

/** One output stream's redaction (a secret split across chunks is caught) and UTF-8 decoding. */
function outputState(redactor: SecretRedactor) {
  return { redact: redactor.stream(), decoder: new TextDecoder() };
}

/** One call's events towards the page, in order: `push` gets each, output batched. */
export class CallStream {
  readonly #push: (event: CallEventView) => void;
  readonly #streams: Record<StreamName, ReturnType<typeof outputState>>;
  readonly #batcher: OutputBatcher;
  #outputBytes = 0;
  #droppedBytes = 0;

  constructor(redactor: SecretRedactor, push: (event: CallEventView) => void) {
    this.#push = push;
    this.#streams = { stdout: outputState(redactor), stderr: outputState(redactor) };
    this.#batcher = new OutputBatcher((batch) => push({ type: "output", ...batch }), outputBatchMs);
  }

  /** An output chunk as it arrived. */
  output(stream: StreamName, data: Uint8Array): void {
    this.#text(stream, this.#streams[stream].redact.push(data));
  }

  /** Any other event, after the output held before it. */
  add(event: CallEventView): void {
    this.#batcher.flush();
    this.#push(event);
  }

  /** The end of the output: what the redactors and decoders hold, and how much was not kept. */
  endOutput(): void {
    for (const name of ["stdout", "stderr"] as const) {
      const s = this.#streams[name];
      this.#text(name, s.redact.flush());
      const rest = s.decoder.decode();
      if (rest !== "") this.#text(name, new TextEncoder().encode(rest));
    }
    if (this.#droppedBytes > 0)
      this.add({
        type: "output",
        stream: "stderr",
        text: `\n[harness-tool inspect: ${this.#droppedBytes} more bytes of output not shown]\n`,
      });
  }

  /** Sends the output batch held now. */
  flush(): void {
    this.#batcher.flush();
  }

  #text(stream: StreamName, bytes: Uint8Array): void {
    const text = this.#streams[stream].decoder.decode(bytes, { stream: true });
    if (text === "") return;
    const size = Buffer.byteLength(text);
    if (this.#outputBytes + size > outputLimitBytes) {
      this.#droppedBytes += size;
      return;
    }
    this.#outputBytes += size;
    this.#batcher.add(stream, text);
  }
}
