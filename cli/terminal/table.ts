/**
 * Plain-text tables for the terminal: columns padded to the widest cell, a rule under the header,
 * and, given a width, fitted to it. Columns give up width in the steps the caller names (a column
 * may appear in several, each down to a narrower width); a cell too long for its column is wrapped
 * onto more lines (at spaces, else after punctuation) or cut with an ellipsis, as the column says.
 */
import { truncate, wrapText } from "./terminal-width.js";

/** What a cell too long for its column becomes: more lines, or cut ending in "…". */
export type Overflow = "wrap" | "truncate";

/** Fitting a table to a width. */
export interface TableLayout {
  /** The width to fit, in columns. */
  readonly width: number;
  /** Per column (default: truncate). */
  readonly overflow: readonly (Overflow | undefined)[];
  /** In order, until the table fits: narrow `column` as far as `downTo` columns. */
  readonly shrink: readonly { readonly column: number; readonly downTo: number }[];
}

const gap = "  ";

/** Characters after which a word may break: JSON, paths, handshake lines and rule ids split between tokens. */
const breakAfter = /[,;:|/.\-_&=]/;

/** `word` (longer than `width`) in pieces of at most `width`: after a break character where one fits, else mid-word. */
function breakWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let rest = word;
  while (rest.length > width) {
    let at = width;
    for (let i = width - 1; i > 0; i--) {
      if (breakAfter.test(rest[i - 1] as string)) {
        at = i;
        break;
      }
    }
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  pieces.push(rest);
  return pieces;
}

/** `text` in lines of at most `width` characters: at spaces where it can, else after punctuation, else mid-word. */
function hardWrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const line of wrapText(text, width)) lines.push(...(line.length <= width ? [line] : breakWord(line, width)));
  return lines.length > 0 ? lines : [""];
}

function fitted(natural: number[], layout: TableLayout): { widths: number[]; excess: number } {
  const widths = [...natural];
  let excess = widths.reduce((a, b) => a + b, 0) + gap.length * (widths.length - 1) - layout.width;
  for (const { column, downTo } of layout.shrink) {
    if (excess <= 0) break;
    const give = Math.max(0, Math.min(excess, (widths[column] ?? 0) - downTo));
    widths[column] = (widths[column] ?? 0) - give;
    excess -= give;
  }
  return { widths, excess };
}

function naturalWidths(header: readonly string[], rows: readonly (readonly string[])[]): number[] {
  return header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
}

/** True when `layout`'s shrink steps bring the table within its width. */
export function tableFits(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  layout: TableLayout,
): boolean {
  return fitted(naturalWidths(header, rows), layout).excess <= 0;
}

/** Renders `rows` under `header`; cells are strings already. With `layout`, fits its width. */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  layout?: TableLayout,
): string {
  const natural = naturalWidths(header, rows);
  const widths = layout ? fitted(natural, layout).widths : natural;
  const cellLines = (cell: string, i: number): string[] => {
    const w = widths[i] ?? 0;
    if (cell.length <= w) return [cell];
    return layout?.overflow[i] === "wrap" ? hardWrap(cell, w) : [truncate(cell, w)];
  };
  const render = (cells: readonly string[]): string[] => {
    const split = header.map((_, i) => cellLines(cells[i] ?? "", i));
    const height = Math.max(...split.map((s) => s.length));
    const lines: string[] = [];
    for (let l = 0; l < height; l++) {
      lines.push(
        split
          .map((s, i) => (i === split.length - 1 ? (s[l] ?? "") : (s[l] ?? "").padEnd(widths[i] ?? 0)))
          .join(gap)
          .trimEnd(),
      );
    }
    return lines;
  };
  return [...render(header), widths.map((w) => "-".repeat(w)).join(gap), ...rows.flatMap(render)].join("\n") + "\n";
}
