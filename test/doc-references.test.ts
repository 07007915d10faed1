// Every reference a reader of the repository can follow leads somewhere: each Markdown link of the
// docs and READMEs names an existing file, and each #anchor a heading of that file, by GitHub's
// slug rules; each `docs/<file>.md#anchor` (or `<file>.md#anchor`) cited in the code, comments and
// strings alike, likewise. Nothing cites a page that lives outside the repository (the kernel's
// wire contract): a citation names the proto, a doc section or states the requirement itself. No
// Markdown parser is a dependency, so this is a small extractor: fenced code blocks and code spans
// are left out, links are inline ones (`[text](target)`, images too), reference definitions and
// HTML `href`/`src`; headings are ATX and setext ones plus HTML `id`/`name` anchors. External
// (scheme:) links are not fetched.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "./support/buf.js";

/** A reference that leads nowhere: where it is written and what is wrong. */
interface Broken {
  where: string;
  reference: string;
  problem: string;
}

/** GitHub's heading id (github-slugger): lowercase, punctuation and symbols dropped, each space a hyphen. */
function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The text GitHub renders for a heading's Markdown: code spans' content, links' text, no tags or emphasis. */
function headingText(markdown: string): string {
  const parts = markdown.split(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/);
  let out = "";
  // split with two groups yields [text, ticks, code, text, ticks, code, ..., text].
  for (let i = 0; i < parts.length; i += 3) {
    out += (parts[i] ?? "")
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/\[([^\]]*)\]\[[^\]]*\]/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/(^|[^\p{L}\p{N}])[*_]+|[*_]+(?=[^\p{L}\p{N}]|$)/gu, "$1")
      .replace(/\\(.)/g, "$1");
    if (i + 2 < parts.length) out += parts[i + 2];
  }
  return out.trim();
}

/** The file's lines with fenced code blocks blanked (line numbers kept). */
function withoutFences(markdown: string): string[] {
  const lines = markdown.split("\n");
  let fence: { char: string; length: number } | undefined;
  return lines.map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (marker?.[1]?.[0] === fence.char && marker[1].length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line))
        fence = undefined;
      return "";
    }
    if (marker?.[1]) {
      fence = { char: marker[1][0] ?? "`", length: marker[1].length };
      return "";
    }
    return line;
  });
}

/** Every anchor a Markdown file offers: its headings' slugs (duplicates suffixed -1, -2, …) and HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  // github-slugger's occurrences: a taken slug gets its base's next free -N.
  const occurrences = new Map<string, number>();
  const add = (text: string) => {
    const base = githubSlug(headingText(text));
    let slug = base;
    while (occurrences.has(slug)) {
      const n = (occurrences.get(base) ?? 0) + 1;
      occurrences.set(base, n);
      slug = `${base}-${n}`;
    }
    occurrences.set(slug, 0);
    anchors.add(slug);
  };
  const lines = withoutFences(markdown);
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) add(atx[1] ?? "");
    const previous = lines[i - 1] ?? "";
    const paragraphLine = previous.trim() !== "" && !/^ {0,3}([#>|]|[-*+] |\d+[.)] |<)/.test(previous);
    if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && paragraphLine && !/^ {0,3}(=+|-+)[ \t]*$/.test(previous)) add(previous);
    for (const m of line.matchAll(/<[a-z]+\b[^>]*\s(?:id|name)="([^"]+)"/gi)) if (m[1]) anchors.add(m[1]);
  });
  return anchors;
}

/** The targets of a Markdown file's links, with their line numbers (code left out). */
function linksOf(markdown: string): { target: string; line: number }[] {
  // Code spans are blanked in place (same length), so offsets still give line numbers.
  const text = withoutFences(markdown)
    .join("\n")
    .replace(/(`+)(?:(?!\n[ \t]*\n)[\s\S])*?[^`]\1(?!`)/g, (span) => span.replace(/[^\n]/g, " "));
  const lineAt = (offset: number) => text.slice(0, offset).split("\n").length;
  const found: { target: string; line: number }[] = [];
  const patterns = [
    /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
    /^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)/gm,
    /<(?:a|img)\b[^>]*\s(?:href|src)="([^"]*)"/gi,
  ];
  for (const pattern of patterns) {
    for (const m of text.matchAll(pattern)) {
      const target = (m[1] ?? "").replace(/^<|>$/g, "");
      found.push({ target, line: lineAt(m.index) });
    }
  }
  return found;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(file, "utf8"));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** What is wrong with `file#anchor` (file absolute), or undefined when it resolves. */
function problemWith(file: string, anchor: string | undefined): string | undefined {
  if (!existsSync(file)) return `no file ${path.relative(repoRoot, file)}`;
  if (anchor === undefined || anchor === "" || !file.endsWith(".md")) return undefined;
  if (!anchorsOfFile(file).has(decodeURIComponent(anchor)))
    return `no heading #${anchor} in ${path.relative(repoRoot, file)}`;
  return undefined;
}

/** The broken links of one Markdown file (path relative to the repository). */
function brokenLinksIn(relative: string): Broken[] {
  const file = path.join(repoRoot, relative);
  const broken: Broken[] = [];
  for (const { target, line } of linksOf(readFileSync(file, "utf8"))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …: not fetched
    const [pathPart = "", anchor] = target.split("#", 2);
    const decoded = decodeURIComponent(pathPart);
    const resolved =
      decoded === ""
        ? file
        : decoded.startsWith("/")
          ? path.join(repoRoot, decoded)
          : path.resolve(path.dirname(file), decoded);
    const problem = problemWith(resolved, anchor);
    if (problem) broken.push({ where: `${relative}:${line}`, reference: target, problem });
  }
  return broken;
}

const skippedFolders = new Set(["node_modules", "dist", "page-dist", ".git"]);
function walk(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skippedFolders.has(entry.name)) out.push(...walk(full, keep));
    } else if (keep(entry.name)) out.push(path.relative(repoRoot, full));
  }
  return out.sort();
}

/** The Markdown a reader of the repository reads: docs/, the READMEs of the root, the packages and the scaffold, the examples' docs. */
function markdownFiles(): string[] {
  const docs = readdirSync(path.join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  const readmes = ["README.md", "runtime/README.md", "plugin/README.md", "cli/README.md", "vendor-proto/README.md"];
  const templates = walk(path.join(repoRoot, "cli/templates"), (name) => name === "README.md");
  // Each example's reference docs, as harness-tool docs writes them.
  const exampleDocs = readdirSync(path.join(repoRoot, "examples")).flatMap((name) =>
    walk(path.join(repoRoot, "examples", name, "docs"), (file) => file.endsWith(".md")),
  );
  return [...docs, ...readmes.filter((f) => existsSync(path.join(repoRoot, f))), ...templates, ...exampleDocs];
}

const codeFolders = ["runtime", "plugin", "cli", "test", "bench", "soak", "examples", "scripts"];
const codeFile = /\.(ts|tsx|mts|cts|js|mjs|cjs|go|proto|json|sh)$/;
/** This file names broken references and the outside pages on purpose (its own proof), so it is not scanned. */
const self = "test/doc-references.test.ts";

/** The code files whose comments may cite a doc. */
function codeFiles(): string[] {
  return codeFolders
    .flatMap((folder) => walk(path.join(repoRoot, folder), (name) => codeFile.test(name)))
    .filter((f) => f !== self && statSync(path.join(repoRoot, f)).size < 2_000_000);
}

/** `docs/x.md`, and `path/x.md#anchor` or `x.md#anchor`, cited in a source text, with line numbers. */
function citationsOf(source: string): { file: string; anchor: string | undefined; line: number }[] {
  const found: { file: string; anchor: string | undefined; line: number }[] = [];
  for (const m of source.matchAll(/(?<![\w./@:-])((?:[\w.-]+\/)*[\w.-]+\.md)(?:#([\w-]+))?/g)) {
    const [, file = "", anchor] = m;
    // Without an anchor only `docs/<name>.md` is ours for sure: a bare README.md is often a file being
    // written, and a deeper path another repository's (the kernel's docs/specifications/…).
    if (anchor === undefined && !/^docs\/[\w.-]+\.md$/.test(file)) continue;
    found.push({ file, anchor, line: source.slice(0, m.index).split("\n").length });
  }
  return found;
}

/** Where a cited doc is: a path from the root (or beside the citing file); a bare name in docs/ first. */
function resolveCitation(citing: string, cited: string): string {
  const candidates = cited.includes("/")
    ? [path.join(repoRoot, cited), path.resolve(path.dirname(path.join(repoRoot, citing)), cited)]
    : [
        path.join(repoRoot, "docs", cited),
        path.resolve(path.dirname(path.join(repoRoot, citing)), cited),
        path.join(repoRoot, cited),
      ];
  return candidates.find((c) => existsSync(c)) ?? (candidates[0] as string);
}

function brokenCitationsIn(relative: string, source: string): Broken[] {
  const broken: Broken[] = [];
  for (const { file, anchor, line } of citationsOf(source)) {
    const problem = problemWith(resolveCitation(relative, file), anchor);
    if (problem) broken.push({ where: `${relative}:${line}`, reference: anchor ? `${file}#${anchor}` : file, problem });
  }
  return broken;
}

/**
 * Pages that live beside the repository, never in it (the kernel's wire contract and protocol text,
 * the machines' measurement notes): a reader cannot follow a citation of them.
 */
const outsidePages = /wire-contract(?:\.md|\s*§)|tool-provider-protocol\.md|(?<![\w-])measured\.md|\/work\/shared\//g;

function outsideCitationsIn(relative: string, source: string): Broken[] {
  return [...source.matchAll(outsidePages)].map((m) => ({
    where: `${relative}:${source.slice(0, m.index).split("\n").length}`,
    reference: m[0],
    problem: "a page outside the repository: cite the proto, a doc section or state the requirement",
  }));
}

const report = (broken: Broken[]) => broken.map((b) => `${b.where}: ${b.reference} (${b.problem})`).join("\n");

describe("doc references", () => {
  it("every link and anchor of the docs and READMEs resolves", () => {
    const broken = markdownFiles().flatMap(brokenLinksIn);
    assert.ok(broken.length === 0, `links that lead nowhere:\n${report(broken)}`);
  });

  it("every doc and anchor cited in code resolves, and no code or doc cites a page outside the repository", () => {
    const broken: Broken[] = [];
    for (const relative of codeFiles()) {
      const source = readFileSync(path.join(repoRoot, relative), "utf8");
      broken.push(...brokenCitationsIn(relative, source), ...outsideCitationsIn(relative, source));
    }
    for (const relative of markdownFiles())
      broken.push(...outsideCitationsIn(relative, readFileSync(path.join(repoRoot, relative), "utf8")));
    assert.ok(broken.length === 0, `references that lead nowhere:\n${report(broken)}`);
  });

  it("slugs follow GitHub's rules", () => {
    const anchors = anchorsOf(
      [
        "# The ToolService semantics",
        "## `ToolOptions` — one per rpc",
        "### Errors: what the kernel receives",
        "## Errors",
        "## Errors",
        "## 5. Build it",
        "```sh",
        "# not a heading",
        "```",
        "## [Linked](x.md) *emphasis* and snake_case",
        "Setext heading",
        "---",
        '<a id="explicit"></a>',
      ].join("\n"),
    );
    assert.deepEqual(
      [...anchors],
      [
        "the-toolservice-semantics",
        "tooloptions--one-per-rpc",
        "errors-what-the-kernel-receives",
        "errors",
        "errors-1",
        "5-build-it",
        "linked-emphasis-and-snake_case",
        "setext-heading",
        "explicit",
      ],
    );
  });

  it("finds links, leaves code out, and reports a broken anchor", () => {
    const markdown = [
      "See [runtime](runtime.md#errors) and",
      "[a wrapped",
      "link](#here).",
      "`[not](a-link.md)`",
      "```",
      "[nor](this.md)",
      "```",
    ].join("\n");
    assert.deepEqual(linksOf(markdown), [
      { target: "runtime.md#errors", line: 1 },
      { target: "#here", line: 2 },
    ]);
    const missing = ["runtime.md", "no-such-heading"].join("#");
    assert.deepEqual(
      citationsOf(`// see docs/${missing}\n// docs/runtime.md#errors`).map((c) => c.anchor),
      ["no-such-heading", "errors"],
    );
    const broken = brokenCitationsIn("runtime/x.ts", `// see docs/${missing}\n// docs/runtime.md#errors`);
    assert.deepEqual(
      broken.map((b) => b.problem),
      ["no heading #no-such-heading in docs/runtime.md"],
    );
  });
});
