/** How wide the output may be, and text wrapped to fit it. */

/** The terminal's width in columns; 80 when the stream is not a terminal (a pipe, a CI log). */
export function terminalWidth(stream: NodeJS.WritableStream): number {
  const columns = (stream as NodeJS.WriteStream).isTTY === true ? (stream as NodeJS.WriteStream).columns : undefined;
  return typeof columns === "number" && columns > 0 ? columns : 80;
}

/** Splits `text` into lines of at most `width` characters at spaces; a longer word gets its own line. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** `text` cut to `width` characters, its last one an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 0 ? "" : `${text.slice(0, width - 1)}…`;
}
