// The bad-proto corpus: every file under protos/bad/ fails generation with exactly the errors its
// `// expect: LINE:COL: Scope: message` lines name, all at once, with no files and no stack trace.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { before, describe, it } from "node:test";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { buildFiles, generate } from "./support/plugin-request.js";

const protos = path.join(import.meta.dirname, "protos");
const cases = readdirSync(path.join(protos, "bad"))
  .filter((f) => f.endsWith(".proto"))
  .sort();
const diagnosticLine = /^[\w./-]+\.proto:\d+:\d+: [\w.]+: .+ \(.+\)$/;

function expectations(file: string): { position: string; scope: string; text: string }[] {
  return readFileSync(path.join(protos, "bad", file), "utf8")
    .split("\n")
    .flatMap((line) => {
      const m = /^\/\/ expect: (\d+:\d+): ([\w.]+): (.+)$/.exec(line);
      return m ? [{ position: m[1] as string, scope: m[2] as string, text: m[3] as string }] : [];
    });
}

describe("bad protos", () => {
  let files: FileDescriptorProto[] = [];
  before(() => {
    files = buildFiles(".", protos);
  });

  it("has at least 25 cases, each with expectations", () => {
    assert.ok(cases.length >= 25, `only ${cases.length} bad protos`);
    for (const file of cases) assert.ok(expectations(file).length > 0, `${file} has no // expect: lines`);
  });

  for (const file of cases) {
    it(`${file} fails with its expected errors`, async () => {
      const run = await generate(files, [file]);
      assert.equal(run.response.file.length, 0, "no file may be generated");
      assert.doesNotMatch(run.response.error ?? "", /\n\s+at /, "no stack trace");
      const errors = (run.response.error ?? "").split("\n");
      const expected = expectations(file);
      assert.equal(errors.length, expected.length, `expected ${expected.length} errors, got:\n${run.response.error}`);
      expected.forEach((e, i) => {
        const line = errors[i] ?? "";
        assert.match(line, diagnosticLine);
        assert.ok(
          line.startsWith(`${file}:${e.position}: ${e.scope}: `),
          `error ${i + 1} is not at ${file}:${e.position} for ${e.scope}:\n${line}`,
        );
        assert.ok(line.includes(e.text), `error ${i + 1} does not say ${JSON.stringify(e.text)}:\n${line}`);
      });
    });
  }
});
