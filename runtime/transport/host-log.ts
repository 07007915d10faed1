/**
 * stderr as the host reads it: every line becomes a host log line, and JSON lines with `@level`,
 * `@message` and `@timestamp` keep their level (docs/transport.md#what-the-provider-does-in-order,
 * step 2). stdout belongs to the handshake alone, so console output and stray
 * `process.stdout.write` calls are turned into such lines on stderr. stderr itself is an exit of
 * the provider process: `filterStderr` puts one filter (serve() gives it the service's redaction)
 * in front of every write to it.
 */
import { formatWithOptions } from "node:util";

/** The levels go-plugin's host maps onto hclog. */
export type HostLogLevel = "trace" | "debug" | "info" | "warn" | "error";

/**
 * go-plugin's host splits stderr into lines with a 64 KiB buffer and logs a longer line's pieces
 * at debug level, so longer messages are cut to keep their level.
 */
const maxMessageLength = 60_000;

/**
 * go-plugin parses `@timestamp` with the layout 2006-01-02T15:04:05.000000Z07:00: exactly six
 * fractional digits, or the whole line is logged verbatim at debug level.
 */
export function hostTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** One JSON log line (newline included); other keys than the three `@` keys become host log fields. */
export function hostLogLine(
  level: HostLogLevel,
  message: string,
  fields?: { readonly [key: string]: unknown },
): string {
  const text =
    message.length > maxMessageLength
      ? `${message.slice(0, maxMessageLength)}… (${message.length - maxMessageLength} more characters cut)`
      : message;
  return `${JSON.stringify({ ...fields, "@level": level, "@message": text, "@timestamp": hostTimestamp(new Date()) })}\n`;
}

/**
 * Puts `filter` in front of every write to the process's stderr: the transport's own lines, console
 * output turned into log lines, and a handler's direct `process.stderr.write`. Each write is
 * filtered on its own (a secret split across two raw writes is not found). A filter that throws
 * drops the write rather than let it through. Returns the function that removes the filter.
 */
export function filterStderr(filter: (text: string) => string): () => void {
  const stderr = process.stderr;
  const original = stderr.write;
  const filtered = function write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    let out: string;
    try {
      out = filter(text);
    } catch {
      out = `${hostLogLine("error", "harness-tool: a stderr write was dropped because redacting it failed")}`;
    }
    const done = typeof encoding === "function" ? encoding : callback;
    return typeof done === "function"
      ? original.call(stderr, out, "utf8", done as (error?: Error | null) => void)
      : original.call(stderr, out, "utf8");
  };
  stderr.write = filtered as typeof stderr.write;
  return () => {
    if (stderr.write === filtered) stderr.write = original;
  };
}

/** Writes a line to stderr, ignoring a closed pipe (the host is gone; exit follows elsewhere). */
export function writeStderr(text: string): void {
  try {
    process.stderr.write(text);
  } catch {
    // EPIPE or a destroyed stream: nobody is listening any more.
  }
}

/** Logs one line for the host on stderr. */
export function hostLog(level: HostLogLevel, message: string, fields?: { readonly [key: string]: unknown }): void {
  writeStderr(hostLogLine(level, message, fields));
}

const consoleLevels = {
  log: "info",
  info: "info",
  debug: "debug",
  warn: "warn",
  error: "error",
  trace: "trace",
} as const;

/**
 * Makes stdout unusable by accident: console.log/info/debug/warn/error/trace and
 * process.stdout.write (console.dir, console.table, user code) become JSON log lines on stderr.
 * Returns the original stdout write, the one way left to reach the host's stdout pipe.
 */
export function guardStdout(): { restore: () => void; flush: () => void } {
  const originalWrite = process.stdout.write;
  const originals = Object.fromEntries(
    Object.keys(consoleLevels).map((m) => [m, console[m as keyof typeof consoleLevels]]),
  );
  for (const [method, level] of Object.entries(consoleLevels)) {
    console[method as keyof typeof consoleLevels] = (...args: unknown[]) => {
      let message = formatWithOptions({ colors: false }, ...args);
      if (method === "trace")
        message = `Trace: ${message}\n${(new Error().stack ?? "").split("\n").slice(2).join("\n")}`;
      hostLog(level, message);
    };
  }

  let pending = "";
  const flush = () => {
    if (pending !== "") hostLog("info", pending, { stream: "stdout" });
    pending = "";
  };
  const redirected = function write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    const text =
      typeof chunk === "string"
        ? chunk
        : Buffer.from(chunk as Uint8Array).toString(
            typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8",
          );
    const lines = (pending + text).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) hostLog("info", line, { stream: "stdout" });
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  };
  process.stdout.write = redirected as typeof process.stdout.write;
  return {
    flush,
    restore: () => {
      flush();
      process.stdout.write = originalWrite;
      for (const [method, fn] of Object.entries(originals))
        console[method as keyof typeof consoleLevels] = fn as () => void;
    },
  };
}

/** A closed stdout or stderr pipe (EPIPE) must never crash the provider. */
export function survivePipeErrors(onStderrClosed: () => void): void {
  process.stdout.on("error", () => {});
  process.stderr.on("error", onStderrClosed);
}
