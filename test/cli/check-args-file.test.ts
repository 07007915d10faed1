// `check --args-file` is checked against the provider's tools before any call: a key naming no
// tool and arguments breaking a tool's input schema are refused (exit 2), one line per fault,
// instead of the key being ignored and the arguments reported as "schema-valid ... refused".
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "./support/run-cli.js";

describe("harness-tool check --args-file", () => {
  let dir = "";
  let provider = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-args-file-"));
    provider = writeProviderScript(dir, "streaming", "test/cli/fixtures/streaming-provider.ts");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const check = (args: unknown) => {
    const file = path.join(dir, "args.json");
    writeFileSync(file, JSON.stringify(args));
    return cli(["check", provider, "--allow-resources", "--args-file", file, "--cwd", dir]);
  };

  it("refuses a key that names no tool, suggesting the nearest, and one naming nothing near, listing the tools", async () => {
    const { code, out, err } = await check({ runn: { script: "true" }, deploy: {} });
    assert.equal(code, 2, err);
    assert.equal(out, "");
    const file = path.join(dir, "args.json");
    assert.deepEqual(err.split("\n"), [
      `harness-tool check: --args-file ${file}: "runn" names no tool; did you mean run?`,
      `harness-tool check: --args-file ${file}: "deploy" names no tool; the tools are run, count, crash, fail`,
      "",
    ]);
  });

  it("refuses arguments that break the tool's input schema, a line per violation, before any call", async () => {
    const { code, out, err } = await check({ run: { script: 7, shell: "bash" }, count: "ten" });
    assert.equal(code, 2, err);
    assert.equal(out, "", "no report: nothing was invoked");
    const lines = err.trimEnd().split("\n");
    assert.deepEqual(
      lines.map((l) => l.replace(/^harness-tool check: --args-file \S+: /, "")),
      [
        "run: /script must be a string, not a number",
        "run: /shell is not a known property",
        "count: the arguments must be an object, not a string",
      ],
    );
    for (const line of lines) assert.match(line, /^harness-tool check: /);
  });

  it("runs with a file that fits the tools", async () => {
    // (The fixture's crash tool ends the provider when invoked with sample arguments: rules after it fail.)
    const { code, out, err } = await check({ run: { script: "echo hi" } });
    assert.notEqual(code, 2, err);
    assert.match(out, /^invoke\.valid:run\s.*\spass\s/m);
  });
});
