/**
 * The session's one exit towards the page: every stream message, answer and snapshot passes the
 * secret keeper here, so a new kind of message cannot forget redaction.
 */
import type { StreamMessage } from "../protocol/page-protocol.js";
import { SecretKeeper } from "./secret-masking.js";

/** The page's listeners and the secrets everything sent to them is redacted of. */
export class PageChannel {
  /** Every secret the session was given; the parts add to it before a value can echo back. */
  readonly keeper = new SecretKeeper();
  readonly #listeners = new Set<(message: StreamMessage) => void>();

  /** Receives every stream message from now on (already redacted); returns the unsubscribe. */
  subscribe(listener: (message: StreamMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sends a stream message to every listener, redacted. */
  publish(message: StreamMessage): void {
    if (this.#listeners.size === 0) return;
    const safe = this.keeper.json(message);
    for (const listener of this.#listeners) listener(safe);
  }

  /** An answer or snapshot for the page, redacted. */
  json<T>(value: T): T {
    return this.keeper.json(value);
  }

  /** A text for the page (an error message of the inspector itself), redacted. */
  redactText(text: string): string {
    return this.keeper.redactor.string(text);
  }

  /** Drops every listener (the session closed). */
  close(): void {
    this.#listeners.clear();
  }
}
