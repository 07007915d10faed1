// The docs `harness-tool docs` writes, read by a maintained Markdown parser (marked's lexer), as
// GitHub would read them: every page opens with one title and its headings never skip a level,
// every table row has as many cells as its header, every JSON block parses, no placeholder is left
// unfilled, and every link leads to a page that exists and to a heading it has (GitHub's ids).
// The pages checked are every example's committed docs.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { type Token, type Tokens, lexer } from "marked";
import { headingId } from "../../cli/docs/markdown-text.js";
import { repoRoot } from "../support/buf.js";
import { listFiles } from "../support/tree-diff.js";

const examplesRoot = path.join(repoRoot, "examples");
const pages = ["agent", "exec", "filesystem", "guard", "search", "task", "user", "web"].flatMap((name) =>
  listFiles(path.join(examplesRoot, name, "docs")).map((file) => path.join(examplesRoot, name, "docs", file)),
);

/** Every token, nested ones (inline tokens, table cells, list items) included. */
function allTokens(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  const visit = (token: Token) => {
    out.push(token);
    const nested = token as {
      tokens?: Token[];
      items?: Token[];
      header?: { tokens: Token[] }[];
      rows?: { tokens: Token[] }[][];
    };
    for (const child of nested.tokens ?? []) visit(child);
    for (const child of nested.items ?? []) visit(child);
    for (const cell of nested.header ?? []) for (const child of cell.tokens) visit(child);
    for (const row of nested.rows ?? []) for (const cell of row) for (const child of cell.tokens) visit(child);
  };
  for (const token of tokens) visit(token);
  return out;
}

/** The heading ids of a page as GitHub assigns them (a repeated one suffixed -1, -2, …). */
function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const token of lexer(markdown)) {
    if (token.type !== "heading") continue;
    const base = headingId((token as Tokens.Heading).text.replace(/`/g, ""));
    const n = seen.get(base);
    ids.add(n === undefined ? base : `${base}-${n + 1}`);
    seen.set(base, (n ?? -1) + 1);
  }
  return ids;
}

/** The cells of a raw table line: split at pipes that no backslash escapes, the outer ones dropped. */
function rawCells(line: string): number {
  return line
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/).length;
}

/** What is wrong with the Markdown of `page` (its links resolved from its folder): one line each. */
function pageProblems(markdown: string, page: string): string[] {
  const problems: string[] = [];
  const tokens = lexer(markdown);
  if (/\{\{\w+\}\}/.test(markdown)) problems.push("a placeholder left unfilled");
  const headings = tokens.filter((t): t is Tokens.Heading => t.type === "heading");
  if (headings[0]?.depth !== 1 || headings.filter((h) => h.depth === 1).length !== 1)
    problems.push("not one title first");
  headings.forEach((h, i) => {
    if (i > 0 && h.depth > (headings[i - 1]?.depth ?? 1) + 1) problems.push(`heading "${h.text}" skips a level`);
  });
  const all = allTokens(tokens);
  for (const table of all.filter((t): t is Tokens.Table => t.type === "table")) {
    for (const line of table.raw.trimEnd().split("\n"))
      if (rawCells(line) !== table.header.length) problems.push(`a row not of ${table.header.length} cells: ${line}`);
  }
  for (const code of all.filter((t): t is Tokens.Code => t.type === "code" && t.lang === "json")) {
    try {
      JSON.parse(code.text);
    } catch {
      problems.push(`a JSON block that does not parse: ${code.text.split("\n")[0]}`);
    }
  }
  for (const link of all.filter((t): t is Tokens.Link => t.type === "link")) {
    if (/^[a-z]+:/i.test(link.href)) continue;
    const [file = "", anchor] = link.href.split("#", 2);
    const target = file === "" ? page : path.resolve(path.dirname(page), file);
    if (!existsSync(target)) problems.push(`${link.href}: no file`);
    else if (anchor !== undefined && !headingIds(readFileSync(target, "utf8")).has(anchor))
      problems.push(`${link.href}: no heading #${anchor}`);
  }
  return problems;
}

describe("the generated docs are well-formed Markdown", () => {
  it("there are pages to check: an index and a page per tool of every example", () => {
    assert.ok(pages.length >= 8 * 2, `found ${pages.length}`);
  });

  it("the checks find what is wrong: a short table row, a skipped level, bad JSON, a broken anchor, a placeholder", () => {
    const page = path.join(examplesRoot, "task/docs/tools/task_create.md");
    const broken = [
      "# t",
      "### skipped",
      "| a | b |",
      "| --- | --- |",
      "| only one |",
      "",
      "```json",
      "{ nope",
      "```",
      "",
      "[up](#no-such-heading) [gone](missing.md) {{tool_name}}",
    ].join("\n");
    assert.deepEqual(pageProblems(broken, page), [
      "a placeholder left unfilled",
      'heading "skipped" skips a level',
      "a row not of 2 cells: | only one |",
      "a JSON block that does not parse: { nope",
      "#no-such-heading: no heading #no-such-heading",
      "missing.md: no file",
    ]);
  });

  for (const page of pages) {
    const shown = path.relative(repoRoot, page);
    it(`${shown}: one title, no skipped heading level, whole tables, JSON that parses, links that resolve`, () => {
      assert.deepEqual(pageProblems(readFileSync(page, "utf8"), page), []);
    });
  }
});
