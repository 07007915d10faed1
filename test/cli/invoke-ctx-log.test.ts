// invoke shows the handler's ctx.log lines (the kernel's Log callback) on stderr as they arrive:
// level, logger, message and fields, the config's secrets redacted; debug and trace with --verbose
// only, nothing with --quiet.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "./support/run-cli.js";

describe("invoke shows ctx.log", () => {
  let dir = "";
  let provider = "";
  let config = "";
  const secret = "s3cr3t-token-value-0123";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-ctx-log-"));
    provider = writeProviderScript(dir, "hanging", "test/cli/fixtures/hanging-provider.ts");
    config = path.join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ token: secret }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const invoke = (...flags: string[]) =>
    cli(["invoke", provider, "log", "--args", '{"note": "hi there"}', "--config", config, ...flags]);

  it("on stderr, as they arrive: level, logger, message, fields; the secret redacted; no debug line", async () => {
    const { code, out, err } = await invoke();
    assert.equal(code, 0, err);
    assert.match(out, /"logged": true/);
    assert.match(err, /^\[INFO\] {2}hanging\.log: an info note: note="hi there" token=\S+$/m);
    assert.match(err, /^\[WARN\] {2}hanging\.log: a warning: attempt=2$/m);
    assert.match(err, /^\[ERROR\] hanging\.log: an error note$/m);
    assert.doesNotMatch(err, /a debug note/);
    assert.ok(!`${out}${err}`.includes(secret), "the config's sensitive value was printed");
  });

  it("--verbose adds the debug lines; --quiet shows none", async () => {
    const verbose = await invoke("--verbose");
    assert.match(verbose.err, /^\[DEBUG\] hanging\.log: a debug note: note="hi there"$/m);
    const quiet = await invoke("--quiet");
    assert.equal(quiet.code, 0, quiet.err);
    assert.doesNotMatch(quiet.err, /hanging\.log/);
    assert.ok(!`${verbose.out}${verbose.err}${quiet.out}`.includes(secret));
  });
});
