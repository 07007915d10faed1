// A writable stream that keeps what is written, posing as a terminal of a given width when asked.
import { PassThrough } from "node:stream";

/** What a command wrote, and a stream to hand it. */
export interface CapturedStream {
  readonly stream: NodeJS.WriteStream;
  text(): string;
  /** Resolves once the text written so far matches `pattern`. */
  wait(pattern: RegExp): Promise<void>;
}

/** A stream that records its text; with `columns`, it reports itself as a terminal that wide. */
export function captureStream(columns?: number): CapturedStream {
  const stream = new PassThrough();
  let text = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  stream.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (const w of [...waiters]) {
      if (w.pattern.test(text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  if (columns !== undefined) Object.assign(stream, { isTTY: true, columns });
  return {
    stream: stream as unknown as NodeJS.WriteStream,
    text: () => text,
    wait: (pattern) =>
      pattern.test(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve })),
  };
}
