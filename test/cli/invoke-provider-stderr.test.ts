// `harness-tool invoke` shows the provider's stderr as it arrives (a handler's console.error on a
// call that succeeds too), as the kernel's log would: all but debug and trace lines by default,
// everything with --verbose, nothing with --quiet. A provider that refuses the empty config when
// no --config was given is a one-line usage error (exit 2) naming the flag.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "./support/run-cli.js";

describe("harness-tool invoke: the provider's stderr and its config", () => {
  let dir = "";
  let provider = "";
  let config = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-invoke-stderr-"));
    provider = writeProviderScript(dir, "logging", "test/cli/fixtures/logging-provider.ts");
    config = path.join(dir, "config.json");
    writeFileSync(config, '{"region": "north"}');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const greet = (...extra: string[]) =>
    cli(["invoke", provider, "greet", "--config", config, "--args", '{"name": "Ada"}', ...extra]);

  it("shows a handler's console.error and console.log on a call that succeeds; its debug lines are left out", async () => {
    const { code, out, err } = await greet();
    assert.equal(code, 0, err);
    assert.match(out, /"greeting": "hello Ada in north"/);
    assert.match(err, /^\[ERROR\] provider: about to greet Ada$/m);
    assert.match(err, /^\[INFO\] {2}provider: an info line$/m);
    assert.match(err, /^provider: a raw line without a level$/m);
    assert.doesNotMatch(err, /a debug line|shutting down/);
    assert.doesNotMatch(out, /about to greet/, "the provider's stderr stays off stdout");
  });

  it("--verbose shows the debug lines too; --quiet shows nothing of the provider's stderr", async () => {
    const verbose = await greet("--verbose");
    assert.equal(verbose.code, 0, verbose.err);
    assert.match(verbose.err, /^\[DEBUG\] provider: a debug line$/m);
    assert.match(verbose.err, /about to greet Ada/);
    const quiet = await greet("--quiet");
    assert.equal(quiet.code, 0, quiet.err);
    assert.equal(quiet.err, "");
    const both = await greet("--quiet", "--verbose");
    assert.equal(both.code, 2);
    assert.match(both.err, /^harness-tool invoke: --quiet and --verbose contradict each other/);
  });

  it("a provider that dies mid-call: its exit, then the lines of its stderr not shown yet (its debug lines)", async () => {
    const { code, err } = await cli(["invoke", provider, "quit", "--config", config, "--args", "{}"]);
    assert.equal(code, 1, err);
    const lines = err.trimEnd().split("\n");
    assert.equal(lines[0], "[ERROR] provider: quitting");
    assert.equal(
      lines[1],
      "harness-tool invoke: the provider exited during the call: exit code 3; the last lines of its stderr not shown above:",
    );
    assert.match(lines[2] ?? "", /^ {2}\{.*"@message":"the debug detail of why"/);
    assert.equal(lines.length, 3, err);
  });

  it("without --config, a provider that needs one: one line naming --config, exit 2", async () => {
    const { code, out, err } = await cli(["invoke", provider, "greet", "--args", '{"name": "Ada"}']);
    assert.equal(code, 2, err);
    assert.equal(out, "");
    assert.equal(err, "harness-tool invoke: the provider needs --config <file.json>: /region is required\n");
  });

  it("a --config the provider refuses: one line naming the file and the violation, exit 2", async () => {
    const wrong = path.join(dir, "wrong.json");
    writeFileSync(wrong, '{"region": 7}');
    const { code, err } = await cli(["invoke", provider, "greet", "--config", wrong, "--args", '{"name": "Ada"}']);
    assert.equal(code, 2, err);
    assert.equal(err, `harness-tool invoke: the provider rejected --config ${wrong}: /region is required\n`);
  });
});
