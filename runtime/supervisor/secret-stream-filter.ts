/**
 * The supervisor's byte filter: the provider's stdout and stderr pipes, as bytes, with the
 * configured secrets replaced by the marker before anything reaches the host. It holds back only a
 * tail that is the beginning of a secret, so a secret split across writes (or written by two
 * processes sharing the pipe, one half each) is still caught, and ordinary lines pass at once.
 *
 * It matches the redactor's forms of a secret and its marker (runtime/redaction), on bytes, and
 * skips secrets shorter than the service's minimum (those are only replaced where a whole string
 * equals them, which a byte stream has not).
 */
import { minimumSubstringSecretLength, redactionMarker, secretForms } from "../redaction/index.js";

const marker = Buffer.from(redactionMarker);

/** The forms of a secret, as the bytes that would appear in a stream. */
function formsOf(secret: string): Buffer[] {
  return secretForms(secret).map((form) => Buffer.from(form, "utf8"));
}

/** The secrets one supervisor knows; shared by its stream filters. */
export class SecretSet {
  #forms: Buffer[] = [];
  readonly #known = new Set<string>();

  /** Adds secrets (never forgets one: a rotated key stays redacted). */
  learn(secrets: Iterable<string>): void {
    for (const secret of secrets) {
      if (typeof secret !== "string" || secret.length < minimumSubstringSecretLength || this.#known.has(secret))
        continue;
      this.#known.add(secret);
      this.#forms.push(...formsOf(secret));
    }
    // Longest first, so a form that contains a shorter one is replaced whole.
    this.#forms.sort((a, b) => b.length - a.length);
  }

  get forms(): readonly Buffer[] {
    return this.#forms;
  }
}

/** Replaces every form of every secret in `data` (overlapping matches become one marker). */
function redact(data: Buffer, forms: readonly Buffer[]): Buffer {
  const ranges: [number, number][] = [];
  for (const form of forms) {
    for (let at = data.indexOf(form); at !== -1; at = data.indexOf(form, at + 1)) ranges.push([at, at + form.length]);
  }
  if (ranges.length === 0) return data;
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, stop] of ranges) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], stop);
    else merged.push([start, stop]);
  }
  const parts: Buffer[] = [];
  let copied = 0;
  for (const [start, stop] of merged) {
    parts.push(data.subarray(copied, start), marker);
    copied = stop;
  }
  parts.push(data.subarray(copied));
  return Buffer.concat(parts);
}

/** How many bytes at the end of `data` are the beginning (not the whole) of some form. */
function pendingPrefix(data: Buffer, forms: readonly Buffer[]): number {
  let longest = 0;
  for (const form of forms) {
    for (let n = Math.min(form.length - 1, data.length); n > longest; n--) {
      if (data.compare(form, 0, n, data.length - n, data.length) === 0) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

/** One byte stream through the filter. */
export class SecretStreamFilter {
  readonly #secrets: SecretSet;
  #held: Buffer = Buffer.alloc(0);

  constructor(secrets: SecretSet) {
    this.#secrets = secrets;
  }

  /** The bytes safe to pass on now; keeps back a tail that may be the start of a secret. */
  push(chunk: Uint8Array): Buffer {
    const forms = this.#secrets.forms;
    const data = this.#held.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.#held, chunk]);
    if (forms.length === 0) {
      this.#held = Buffer.alloc(0);
      return data;
    }
    const redacted = redact(data, forms);
    const keep = pendingPrefix(redacted, forms);
    this.#held = Buffer.from(redacted.subarray(redacted.length - keep));
    return redacted.subarray(0, redacted.length - keep);
  }

  /** The rest, when the stream ends. */
  flush(): Buffer {
    const rest = redact(this.#held, this.#secrets.forms);
    this.#held = Buffer.alloc(0);
    return rest;
  }
}
