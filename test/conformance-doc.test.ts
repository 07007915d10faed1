// docs/conformance.md lists every protocol requirement with its source, where it is enforced and the
// tests that prove it. This keeps the table true: every cited test file exists and contains the
// quoted test name, IDs are unique, every row has a proof (or says exactly why only the kernel can
// show it), and the number of rows is the one stated here, so a row cannot vanish unnoticed.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { repoRoot } from "./support/buf.js";

/** How many requirements the table lists; raise it with each row added. */
const expectedRows = 106;

const enforcementPlaces = new Set(["generation", "compile time", "start-up", "run time", "check", "diff", "kernel"]);

/** One row of the table. */
interface Row {
  readonly line: number;
  readonly id: string;
  readonly requirement: string;
  readonly source: string;
  readonly enforced: readonly string[];
  readonly proof: string;
}

/** The rows of the requirements table in `markdown` (the table whose header starts `| ID |`). */
function tableRows(markdown: string): Row[] {
  const lines = markdown.split("\n");
  const header = lines.findIndex((l) => /^\| ID \| requirement \| source \| enforced at \| proof \|$/.test(l));
  if (header < 0) return [];
  const rows: Row[] = [];
  for (let i = header + 2; i < lines.length && lines[i]?.startsWith("|"); i++) {
    const cells = (lines[i] as string)
      .slice(1, -1)
      .split(" | ")
      .map((c) => c.trim());
    const [id = "", requirement = "", source = "", enforced = "", proof = "", ...rest] = cells;
    if (rest.length > 0) throw new Error(`docs/conformance.md:${i + 1}: more than five cells (a "|" inside a cell?)`);
    rows.push({ line: i + 1, id, requirement, source, enforced: enforced.split(", "), proof });
  }
  return rows;
}

/** The cited tests of a proof cell: `test/x.test.ts` › "name", each part separated by <br>. */
function citations(proof: string): { file: string; name: string }[] {
  return [...proof.matchAll(/`(test\/[^`]+\.test\.ts)` › "((?:[^"\\]|\\.)*)"/g)].map((m) => ({
    file: m[1] as string,
    name: m[2] as string,
  }));
}

/** What is wrong with one row, each problem a line (empty when the row holds). */
function rowProblems(row: Row, readTest: (file: string) => string | undefined): string[] {
  const at = `docs/conformance.md:${row.line} (${row.id})`;
  const problems: string[] = [];
  if (!/^C\d{2,3}$/.test(row.id)) problems.push(`${at}: the ID is not C followed by a number`);
  if (row.requirement.length < 10) problems.push(`${at}: no requirement sentence`);
  if (
    !/^(kernel:docs\/specifications\/[\w./-]+\.md#[\w-]+|kernel:api\/[\w./-]+\.proto|protocol:§\S.*)$/.test(row.source)
  )
    problems.push(
      `${at}: the source is not kernel:docs/specifications/<file>.md#<section>, kernel:api/<proto> or protocol:§<section>`,
    );
  for (const place of row.enforced)
    if (!enforcementPlaces.has(place)) problems.push(`${at}: "${place}" is not a place of enforcement`);
  const cited = citations(row.proof);
  const kernelOnly = row.enforced.includes("kernel");
  if (cited.length === 0) problems.push(`${at}: no test proves it (cite \`test/<file>.test.ts\` › "<test name>")`);
  if (kernelOnly && !/unobservable: the kernel snapshot has no [^<]{10,}/.test(row.proof))
    problems.push(
      `${at}: a kernel part needs "unobservable: the kernel snapshot has no …", saying why it cannot be shown`,
    );
  for (const { file, name } of cited) {
    const text = readTest(file);
    if (text === undefined) problems.push(`${at}: ${file} does not exist`);
    else if (!text.includes(name.replace(/\\"/g, '"'))) problems.push(`${at}: ${file} has no test named "${name}"`);
  }
  return problems;
}

const readTest = (file: string): string | undefined => {
  const full = path.join(repoRoot, file);
  return existsSync(full) ? readFileSync(full, "utf8") : undefined;
};

describe("docs/conformance.md", () => {
  const rows = tableRows(readFileSync(path.join(repoRoot, "docs/conformance.md"), "utf8"));

  it("lists the stated number of requirements", () => {
    assert.equal(rows.length, expectedRows, "a row was added or removed: change expectedRows with it");
  });

  it("gives every requirement a unique ID", () => {
    const seen = new Map<string, number>();
    for (const row of rows) {
      assert.ok(!seen.has(row.id), `${row.id} at line ${row.line} repeats line ${seen.get(row.id)}`);
      seen.set(row.id, row.line);
    }
  });

  it("proves every requirement with tests that exist and are named as cited", () => {
    assert.deepEqual(
      rows.flatMap((row) => rowProblems(row, readTest)),
      [],
    );
  });

  it("fails a row whose test file is missing, whose test name is not in it, or that has no proof", () => {
    const row: Row = {
      line: 1,
      id: "C01",
      requirement: "A requirement sentence.",
      source: "protocol:§Invoke",
      enforced: ["run time"],
      proof: "",
    };
    const files: { [file: string]: string } = { "test/a.test.ts": 'it("does the thing", () => {})' };
    const read = (file: string) => files[file];
    assert.deepEqual(rowProblems({ ...row, proof: '`test/a.test.ts` › "does the thing"' }, read), []);
    assert.match(rowProblems({ ...row, proof: '`test/b.test.ts` › "does the thing"' }, read).join(), /does not exist/);
    assert.match(rowProblems({ ...row, proof: '`test/a.test.ts` › "does another"' }, read).join(), /has no test named/);
    assert.match(rowProblems(row, read).join(), /no test proves it/);
    assert.match(
      rowProblems({ ...row, enforced: ["kernel"], proof: '`test/a.test.ts` › "does the thing"' }, read).join(),
      /unobservable/,
    );
    assert.match(rowProblems({ ...row, enforced: ["somewhere"] }, read).join(), /not a place of enforcement/);
    assert.match(rowProblems({ ...row, source: "the spec" }, read).join(), /the source is not/);
  });

  it("reads a repeated ID and a cell with a stray bar as problems", () => {
    const table = [
      "| ID | requirement | source | enforced at | proof |",
      "| --- | --- | --- | --- | --- |",
      "| C01 | a | b | run time | p |",
      "| C01 | a | b | run time | p |",
    ].join("\n");
    const ids = tableRows(table).map((r) => r.id);
    assert.notEqual(new Set(ids).size, ids.length);
    assert.throws(() => tableRows(`${table}\n| C02 | a | b | c | d | e |`), /more than five cells/);
  });
});
