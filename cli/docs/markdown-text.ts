/**
 * The Markdown pieces every generated page is built from: table cells, code spans and fences that
 * hold any text, tables, and GitHub's heading ids, so a page renders as written whatever the
 * proto's descriptions say.
 */

/** Text as one table cell: pipes escaped (in code spans too, as GitHub reads a table), line breaks as `<br>`, never empty. */
export function cell(text: string): string {
  const flat = text.trim().replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
  return flat === "" ? "-" : flat;
}

/** `text` as a code span, with enough backticks around it that none inside ends it. */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** A fenced code block of `language` holding `content`, fenced longer than any backtick run in it. */
export function fence(language: string, content: string): string {
  const longest = Math.max(0, ...[...content.matchAll(/^ {0,3}(`{3,})/gm)].map((m) => (m[1] as string).length));
  const ticks = "`".repeat(Math.max(3, longest + 1));
  return `${ticks}${language}\n${content.replace(/\n$/, "")}\n${ticks}`;
}

/** A GitHub table: a header row, its delimiter row, one row per entry (cells already escaped). */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

/** GitHub's id for a heading's text (github-slugger): lowercase, punctuation dropped, spaces as hyphens. */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** A prose paragraph from a proto comment: its lines kept, trailing spaces dropped. */
export function paragraph(text: string): string {
  return text
    .trim()
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n");
}
