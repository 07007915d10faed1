// Errors wrap at the terminal's width (or COLUMNS when stderr is no terminal): every command's
// missing-provider and launch-failure lines, and the wrapping itself.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { errorText, errorWidth, wrapLine } from "../../cli/terminal/error-lines.js";
import { UsageError } from "../../cli/terminal/usage-error.js";
import { captureStream } from "../support/captured-stream.js";
import { cli } from "./support/run-cli.js";

describe("errors at the terminal's width", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-width-"));
    writeFileSync(
      path.join(dir, "crash.sh"),
      "#!/bin/sh\necho 'the provider could not open /a/rather/long/path/to/a/database/file/that/does/not/exist/notes.sqlite3' >&2\nexit 3\n",
    );
    chmodSync(path.join(dir, "crash.sh"), 0o755);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const argvFor = (command: string, provider: string): string[] =>
    ({
      invoke: ["invoke", provider, "t", "--args", "{}"],
      hook: ["hook", provider, "session-start", "--mode", "observe", "--payload", "p.json"],
    })[command] ?? [command, provider];

  for (const command of ["schema", "invoke", "hook", "check", "inspect"]) {
    for (const columns of [60, 80, 100]) {
      it(`${command}: a missing provider under dist/ and one that exits at start fit ${columns} columns`, async () => {
        for (const provider of ["dist/missing.mjs", path.join(dir, "crash.sh")]) {
          const { code, out, err } = await cli(argvFor(command, provider), columns);
          // check reports a provider that exits at start as its failed handshake rule, in its report.
          const reported = command === "check" && provider.endsWith("crash.sh");
          assert.equal(code, reported ? 1 : 2, err);
          if (!reported) assert.match(err, new RegExp(`^harness-tool ${command}: `));
          for (const line of `${out}${err}`.trimEnd().split("\n"))
            assert.ok(line.length <= columns, `${line.length} > ${columns}: ${line}`);
        }
      });
    }
  }

  it("without a terminal: COLUMNS when set, else the lines as they are", () => {
    const pipe = captureStream().stream;
    assert.equal(errorWidth(pipe, { COLUMNS: "100" }), 100);
    assert.equal(errorWidth(pipe, {}), undefined);
    assert.equal(errorWidth(captureStream(72).stream, { COLUMNS: "100" }), 72);
    const long = `harness-tool check: cannot launch the provider: ${"word ".repeat(40).trim()}`;
    assert.equal(errorText("harness-tool check", new UsageError(long.slice(20)), undefined), `${long}\n`);
  });

  it("wraps at spaces, indents the continuation, and cuts a word longer than the width", () => {
    assert.deepEqual(wrapLine("one two three four", 9), ["one two", "  three", "  four"]);
    assert.deepEqual(wrapLine("  quoted stderr line here", 14), ["  quoted", "    stderr", "    line here"]);
    const cut = wrapLine(`see ${"x".repeat(30)}`, 12);
    for (const piece of cut) assert.ok(piece.length <= 12, piece);
    assert.equal(cut.join("").replace(/\s/g, ""), `see${"x".repeat(30)}`);
  });
});
