/**
 * How a failed command's error reaches the terminal: `harness-tool <command>: <message>`, each line
 * wrapped at the terminal's width (its continuation indented), so no fault path prints past the
 * edge. The width is the terminal's when stderr is one, else `COLUMNS` when set; a pipe without
 * `COLUMNS` (a CI log, a test capturing the text) gets the lines as they are.
 */
import { wrapText } from "./terminal-width.js";
import { UsageError } from "./usage-error.js";

/** An error whose first line has shorter forms: the first that fits the width is printed, then `tail`. */
export class HeadlineError extends Error {
  /** The first line, longest (most helpful) form first. */
  readonly headlines: readonly string[];
  /** The lines after it (may be empty). */
  readonly tail: string;

  constructor(headlines: readonly string[], tail: string) {
    super(`${headlines[0] ?? ""}${tail === "" ? "" : `\n${tail}`}`);
    this.headlines = headlines;
    this.tail = tail;
  }
}

/** The width errors wrap at on `stream`: its columns on a terminal, else `COLUMNS`, else none (undefined). */
export function errorWidth(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const columns = (stream as NodeJS.WriteStream).isTTY === true ? (stream as NodeJS.WriteStream).columns : undefined;
  if (typeof columns === "number" && columns > 0) return columns;
  const fromEnv = Number(env["COLUMNS"]);
  return Number.isInteger(fromEnv) && fromEnv >= 20 ? fromEnv : undefined;
}

/** `text` split at spaces into lines of at most `width`; a longer word (a path) is cut into pieces that fit. */
function fitted(text: string, width: number): string[] {
  return wrapText(text, width).flatMap((piece) => {
    const pieces: string[] = [];
    for (let at = 0; at < piece.length; at += width) pieces.push(piece.slice(at, at + width));
    return pieces;
  });
}

/** `line` wrapped at `width`, later pieces indented by two more spaces than the line's own indent. */
export function wrapLine(line: string, width: number | undefined): string[] {
  if (width === undefined || line.length <= width) return [line];
  const indent = /^ */.exec(line)?.[0] ?? "";
  const more = `${indent}  `;
  const text = line.slice(indent.length);
  const first = fitted(text, width - indent.length)[0] ?? "";
  // The continuation lines are narrower by their indent: what is left is wrapped again at that width.
  const left = text.slice(text.indexOf(first) + first.length).trimStart();
  return [`${indent}${first}`, ...fitted(left, width - more.length).map((piece) => `${more}${piece}`)];
}

/** The text printed for `cause`, a failure of `prefix` (`harness-tool check`), at `width` (undefined: no wrapping). */
export function errorText(prefix: string, cause: unknown, width: number | undefined): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  let lines: string[];
  if (cause instanceof UsageError) {
    lines = (cause.linePerProblem ? message.split("\n") : [message]).map((line, i) =>
      cause.linePerProblem || i === 0 ? `${prefix}: ${line}` : line,
    );
    lines = lines.flatMap((line) => line.split("\n"));
    if (cause.seeHelp) lines.push(`(see ${prefix} --help)`);
  } else if (cause instanceof HeadlineError) {
    const room = width === undefined ? Number.POSITIVE_INFINITY : width - prefix.length - 2;
    const headline = cause.headlines.find((h) => h.length <= room) ?? cause.headlines.at(-1) ?? "";
    lines = [`${prefix}: ${headline}`, ...(cause.tail === "" ? [] : cause.tail.split("\n"))];
  } else {
    lines = `${prefix}: ${message}`.split("\n");
  }
  return lines.flatMap((line) => wrapLine(line, width).map((piece) => `${piece}\n`)).join("");
}

/** Writes `text` (one or more lines) to `stream`, each line wrapped at its error width: for faults a command reports itself. */
export function writeWrapped(stream: NodeJS.WritableStream, text: string): void {
  const width = errorWidth(stream);
  stream.write(
    text
      .replace(/\n$/, "")
      .split("\n")
      .flatMap((line) => wrapLine(line, width).map((piece) => `${piece}\n`))
      .join(""),
  );
}
