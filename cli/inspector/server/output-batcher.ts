/**
 * Joins a call's output text arriving within a short window into one event for the page: a
 * provider writing line by line would otherwise cost the page one re-render per line. A change of
 * stream (stdout to stderr) or any other event sends what is held first, so the order holds.
 */

/** One batch of output text. */
export interface OutputBatch {
  readonly stream: "stdout" | "stderr";
  readonly text: string;
}

/** Holds output text for up to `windowMs`, then hands it to `send` in one piece. */
export class OutputBatcher {
  readonly #send: (batch: OutputBatch) => void;
  readonly #windowMs: number;
  #pending: { stream: "stdout" | "stderr"; text: string } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(send: (batch: OutputBatch) => void, windowMs: number) {
    this.#send = send;
    this.#windowMs = windowMs;
  }

  /** Adds text; the first text of a batch starts its window. */
  add(stream: "stdout" | "stderr", text: string): void {
    if (text === "") return;
    if (this.#pending && this.#pending.stream !== stream) this.flush();
    if (this.#pending) this.#pending.text += text;
    else this.#pending = { stream, text };
    this.#timer ??= setTimeout(() => this.flush(), this.#windowMs);
  }

  /** Sends what is held now (before another kind of event, and at the end of the call). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) this.#send(pending);
  }
}
