// check tells the truth: a sample call that ends in `unknown` fails its rule unless the
// --args-file marks that outcome expected ("$expect"); resource tools run only with
// --allow-resources, against the --cwd and --config named, after saying which tools and which
// arguments will run.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "./support/run-cli.js";

interface Row {
  rule: string;
  status: string;
  why: string;
}

describe("check tells the truth", () => {
  let dir = "";
  let provider = "";
  let config = "";
  let scratch = "";
  const file = (name: string, value: unknown) => {
    const at = path.join(dir, name);
    writeFileSync(at, JSON.stringify(value));
    return at;
  };
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-check-truth-"));
    provider = writeProviderScript(dir, "hanging", "test/cli/fixtures/hanging-provider.ts");
    config = file("config.json", { token: "t" });
    scratch = path.join(dir, "scratch");
    mkdirSync(scratch);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const rows = async (...flags: string[]) => {
    const run = await cli(["check", provider, "--json", ...flags]);
    return { ...run, rows: run.out === "" ? [] : (JSON.parse(run.out) as Row[]) };
  };
  const row = (all: Row[], rule: string) => all.find((r) => r.rule === rule);

  it("a data-source tool whose sample call ends in unknown fails its rule, and the run", async () => {
    const { code, rows: all, err } = await rows("--config", config);
    assert.equal(code, 1, err);
    const broken = row(all, "invoke.valid:broken");
    assert.equal(broken?.status, "fail");
    assert.match(broken?.why ?? "", /ended with unknown: .*unable to open database file.*"\$expect":"unknown"/);
    assert.equal(row(all, "invoke.valid:wait")?.status, "pass");
  });

  it('an --args-file entry with "$expect" makes that outcome pass, and another outcome fail', async () => {
    const expected = await rows(
      "--config",
      config,
      "--args-file",
      file("expect-unknown.json", { broken: { $expect: "unknown" } }),
    );
    assert.equal(expected.code, 0, expected.out);
    assert.match(
      row(expected.rows, "invoke.valid:broken")?.why ?? "",
      /ended with unknown, as the --args-file expects/,
    );
    const wrong = await rows(
      "--config",
      config,
      "--args-file",
      file("expect-result.json", { broken: { $expect: "result" }, wait: { $expect: "not_found" } }),
    );
    assert.equal(wrong.code, 1);
    assert.match(
      row(wrong.rows, "invoke.valid:broken")?.why ?? "",
      /ended with unknown: .*; the --args-file expects result/,
    );
    assert.match(
      row(wrong.rows, "invoke.valid:wait")?.why ?? "",
      /ended with result; the --args-file expects not_found/,
    );
  });

  it('"$expect" must name an outcome', async () => {
    const { code, err } = await cli([
      "check",
      provider,
      "--args-file",
      file("bad-expect.json", { broken: { $expect: "boom" } }),
    ]);
    assert.equal(code, 2);
    assert.match(err, /broken: \$expect "boom" is no outcome; give one of result, invalid_arguments, /);
  });

  it("a sample call that never ends fails its row once the tool's default_timeout and 5 s more have passed; the run goes on", {
    timeout: 120_000,
  }, async () => {
    const hanging = writeProviderScript(dir, "never-ends", "test/cli/fixtures/hanging-provider.ts", {
      HANG: "invoke",
      WAIT_TIMEOUT_MS: "1000",
    });
    const { code, out, err } = await cli([
      "check",
      hanging,
      "--json",
      "--config",
      config,
      "--args-file",
      file("e.json", { broken: { $expect: "unknown" } }),
    ]);
    assert.equal(code, 1, err);
    const all = JSON.parse(out) as Row[];
    assert.match(
      row(all, "invoke.valid:wait")?.why ?? "",
      /^no terminal event within 6s \(the tool's default_timeout and 5s more, else 60s\): cancelled/,
    );
    assert.equal(row(all, "invoke.valid:log")?.status, "pass", "the rows after it still ran");
  });

  it("resource tools are skipped without --allow-resources, arguments or not", async () => {
    const { rows: all } = await rows(
      "--config",
      config,
      "--args-file",
      file("remove.json", { remove: { id: "n1" }, broken: { $expect: "unknown" } }),
    );
    assert.equal(row(all, "invoke.valid:remove")?.status, "skip");
  });

  it("--allow-resources needs --cwd, and --config for a provider with a config", async () => {
    const args = file("remove-2.json", { remove: { id: "n1" } });
    const noCwd = await cli(["check", provider, "--allow-resources", "--args-file", args, "--config", config]);
    assert.equal(noCwd.code, 2);
    assert.match(
      noCwd.err,
      /^harness-tool check: --allow-resources needs --cwd <dir>: a scratch folder the resource tools may change\n/,
    );
    const noConfig = await cli(["check", provider, "--allow-resources", "--args-file", args, "--cwd", scratch]);
    assert.equal(noConfig.code, 2, noConfig.err);
    assert.match(
      noConfig.err,
      /^harness-tool check: --allow-resources needs --config <file\.json>: a config for test data, not your own\n/,
    );
    assert.doesNotMatch(noConfig.err, /will run/, "nothing announced, nothing run");
  });

  it("with --allow-resources, --cwd and --config: says which tools run with which arguments where, then runs them", async () => {
    const args = file("remove-3.json", { remove: { id: "n1" }, broken: { $expect: "unknown" } });
    const {
      code,
      err,
      rows: all,
    } = await rows("--allow-resources", "--args-file", args, "--cwd", scratch, "--config", config);
    assert.equal(code, 0, err);
    assert.ok(
      err.includes(
        `harness-tool check: --allow-resources: these resource and interactive tools will run in ${scratch} with --config ${config}`,
      ),
      err,
    );
    assert.match(err, /^ {2}remove \{"id":"n1"\}$/m);
    assert.equal(row(all, "invoke.valid:remove")?.status, "pass");
  });

  it("the announcement wraps at the terminal's width", async () => {
    const args = file("remove-4.json", { remove: { id: "n1" }, broken: { $expect: "unknown" } });
    const { err } = await cli(
      ["check", provider, "--json", "--allow-resources", "--args-file", args, "--cwd", scratch, "--config", config],
      60,
    );
    assert.match(err, /^harness-tool check: --allow-resources: these resource and\n/);
    for (const line of err.trimEnd().split("\n")) assert.ok(line.length <= 60, `${line.length} > 60: ${line}`);
  });
});
