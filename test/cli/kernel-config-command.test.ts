// `harness-tool kernel-config`: what it prints for a provider with an attribute of every type
// (snapshot), what --out-dir writes, its usage errors, and the pieces it is made of. The kernel's
// own reading of the output is test/runtime/kernel/kernel-config.test.ts.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { AttrType, ConfigSchemaSchema } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import { patchConstraint, renderAgentConfig, secretVariable } from "../../cli/kernel-config/kernel-config-files.js";
import { repoRoot } from "../support/buf.js";
import { assertSnapshot } from "../support/output-snapshot.js";
import { cli } from "./support/run-cli.js";

const fixture = path.join(repoRoot, "test/runtime/kernel/fixtures/config-provider.ts");

describe("harness-tool kernel-config", () => {
  it("prints the agent.hcl part and the global config part from the provider's Describe and ConfigSchema", async () => {
    const run = await cli(["kernel-config", fixture, "--dev-path", "/opt/providers/config-probe"]);
    assert.equal(run.code, 0, run.err);
    assert.equal(run.err, "");
    assertSnapshot("kernel-config-output", run.out);
    // Required attributes written, optional ones commented out; secrets only as env("…").
    assert.match(run.out, /^ {2}api_key = env\("CONFIG_PROBE_API_KEY"\)$/m);
    assert.match(run.out, /^ {2}# backup_key = env\("CONFIG_PROBE_BACKUP_KEY"\)$/m);
    assert.match(run.out, /^ {2}# max_results = 500$/m);
    assert.match(run.out, /^dev_overrides \{\n {2}config_probe = "\/opt\/providers\/config-probe"\n\}$/m);
  });

  it("--out-dir writes agent.hcl and config.hcl; the options override the provider's own facts", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-kernel-config-"));
    try {
      const run = await cli([
        "kernel-config",
        fixture,
        "--out-dir",
        dir,
        "--name",
        "probe",
        "--source",
        "gitlab.com/x/probe",
        "--constraint",
        ">= 1.0",
        "--dev-path",
        "/opt/probe",
      ]);
      assert.equal(run.code, 0, run.err);
      const agent = readFileSync(path.join(dir, "agent.hcl"), "utf8");
      assert.match(
        agent,
        /^ {2}probe = \{\n {4}source {2}= "gitlab\.com\/x\/probe"\n {4}version = ">= 1\.0"\n {2}\}$/m,
      );
      assert.match(agent, /^provider "probe" \{$/m);
      assert.match(agent, /env\("PROBE_API_KEY"\)/);
      assert.doesNotMatch(agent, /dev_overrides/, "dev_overrides never goes into agent.hcl");
      assert.match(readFileSync(path.join(dir, "config.hcl"), "utf8"), /^ {2}probe = "\/opt\/probe"$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("usage mistakes: one line saying what to do, exit 2", async () => {
    const cases: [string[], string][] = [
      [
        ["--name", "my provider", "--dev-path", "/opt/p"],
        'the provider\'s name "my provider" is not an HCL identifier: give one with --name, e.g. --name notes',
      ],
      [
        [],
        `the kernel launches an executable, not ${fixture}: give the built one with --dev-path, e.g. --dev-path dist/provider.mjs`,
      ],
    ];
    for (const [args, message] of cases) {
      const run = await cli(["kernel-config", fixture, ...args]);
      assert.deepEqual(run, { code: 2, out: "", err: `harness-tool kernel-config: ${message}\n` });
    }
  });

  it("names a secret's variable after the provider and the attribute path, and constrains to patch releases", () => {
    assert.equal(secretVariable("notes", "api_token"), "NOTES_API_TOKEN");
    assert.equal(secretVariable("my-notes", "upstream", "token"), "MY_NOTES_UPSTREAM_TOKEN");
    assert.equal(patchConstraint("1.4.2"), "~> 1.4.2");
    assert.equal(patchConstraint("2.0.0-rc.1"), "= 2.0.0-rc.1");
    assert.equal(patchConstraint("dev"), "= dev");
  });

  it("never prints a sensitive attribute's default; escapes HCL templates in strings", () => {
    const config = create(ConfigSchemaSchema, {
      attributes: [
        {
          name: "token",
          type: AttrType.STRING,
          sensitive: true,
          description: "A token.",
          defaultJson: '"hunter2-default"',
        },
        { name: "greeting", type: AttrType.STRING, description: "", defaultJson: '"hi ${name} %{if x}"' },
      ],
    });
    const text = renderAgentConfig({ name: "p", source: "github.com/a/p", version: "~> 1.0.0", config, devPath: "/p" });
    assert.doesNotMatch(text, /hunter2/);
    assert.match(text, /^ {2}# token = env\("P_TOKEN"\)$/m);
    assert.match(text, /^ {2}# greeting = "hi \$\$\{name\} %%\{if x\}"$/m);
  });
});
