// One wording per fault, whatever the command (cli/terminal/fault-wording.ts): a --config that is
// not JSON, a file that is missing (never a raw ENOENT), arguments that are not JSON. Each is one
// line prefixed `harness-tool <command>:`, exit 2, within 100 columns where the names allow it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { cli } from "./support/run-cli.js";

/** A provider entry that exists (nothing in these cases launches it: the fault comes first). */
const provider = "test/cli/fixtures/streaming-provider.ts";

/** The one line a fault prints, with its command's prefix taken off; asserts exit 2, nothing on stdout, one line. */
async function faultOf(argv: string[]): Promise<string> {
  const { code, out, err } = await cli(argv);
  assert.equal(code, 2, `${argv.join(" ")}: ${err}`);
  assert.equal(out, "");
  assert.doesNotMatch(err, /ENOENT|\n\s+at /, "no raw errno, no stack trace");
  const lines = err.trimEnd().split("\n");
  assert.equal(lines.length, 1, err);
  const prefix = `harness-tool ${argv[0]}: `;
  assert.ok(lines[0]?.startsWith(prefix), err);
  return (lines[0] as string).slice(prefix.length);
}

describe("the same fault is worded the same in every command", () => {
  let dir = "";
  let notJson = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-faults-"));
    notJson = path.join(dir, "bad.json");
    writeFileSync(notJson, "{region: north}");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("--config that is not JSON: invoke, check and inspect", async () => {
    const said = [
      await faultOf(["invoke", provider, "count", "--args", "{}", "--config", notJson]),
      await faultOf(["check", provider, "--config", notJson]),
      await faultOf(["inspect", provider, "--config", notJson]),
    ];
    assert.match(said[0] as string, new RegExp(`^--config ${notJson} is not JSON: \\S`));
    assert.deepEqual(new Set(said).size, 1, said.join("\n"));
  });

  it("--args that is not JSON says it the same way", async () => {
    const config = (await faultOf(["check", provider, "--config", notJson])).replace(`--config ${notJson}`, "");
    const args = (await faultOf(["invoke", provider, "count", "--args", "{region: north}"])).replace("--args", "");
    assert.equal(args, config);
  });

  it("a missing --config or --args-file: `<flag> <file> does not exist`, within 100 columns", async () => {
    const cases: [string[], string][] = [
      [
        ["invoke", provider, "count", "--args", "{}", "--config", "no-such.json"],
        "--config no-such.json does not exist",
      ],
      [["check", provider, "--config", "no-such.json"], "--config no-such.json does not exist"],
      [["inspect", provider, "--config", "no-such.json"], "--config no-such.json does not exist"],
      [["check", provider, "--args-file", "no-args.json"], "--args-file no-args.json does not exist"],
    ];
    for (const [argv, expected] of cases) {
      assert.equal(await faultOf(argv), expected);
      assert.ok(`harness-tool ${argv[0]}: ${expected}`.length <= 100);
    }
  });

  it("a missing entry or provider: `<file> does not exist` in every command, never a PATH lookup or esbuild's words", async () => {
    for (const argv of [
      ["schema", "no-such.ts"],
      ["invoke", "no-such.ts", "t", "--args", "{}"],
      ["check", "no-such.ts"],
      ["inspect", "no-such.ts"],
    ]) {
      assert.equal(await faultOf(argv), "cannot launch the provider: no-such.ts does not exist");
    }
    assert.equal(
      await faultOf(["bundle", "no-such.ts", "--outfile", path.join(dir, "out.mjs")]),
      "no-such.ts does not exist",
    );
    assert.equal(await faultOf(["sync", "no-such.ts"]), "no-such.ts does not exist");
  });

  it("a --config that is a folder, not a file", async () => {
    assert.equal(await faultOf(["check", provider, "--config", dir]), `--config ${dir} is a folder, not a file`);
  });
});
