/**
 * What `harness-tool kernel-config` writes, read by the kernel's own code from its source snapshot
 * (unpacked as kernel-snapshot.ts does): test/runtime/kernel/go/config/*.go.txt joins the kernel's
 * tree as internal/harnesstoolconfig and runs `go test` there on the files this test writes:
 *
 * - config.LoadFile reads the agent.hcl part; config.DecodeProviderConfig decodes its provider block
 *   against the ConfigSchema the provider's GetSchema answered: as written (required attributes
 *   only), with every commented-out attribute uncommented (each default is valid HCL of its type),
 *   refused with a literal where a sensitive attribute needs env("…") (and the literal is not in the
 *   error), refused when the env variable is unset;
 * - registry.LoadGlobalConfig reads the dev_overrides part, and config.LoadFile refuses it in agent.hcl.
 *
 * Skips only when `go` or the snapshot is missing and HARNESS_TOOL_REQUIRE_INTEROP is not "1".
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { repoRoot } from "../../support/buf.js";
import { cli } from "../../cli/support/run-cli.js";
import { outcomeLines, parseGoTestJson } from "./go-test-events.js";
import { goTestEnvironment, kernelOrSkip, runGo, unpackKernel } from "./kernel-snapshot.js";

const fixture = "test/runtime/kernel/fixtures/config-provider.ts";
const goPackage = "internal/harnesstoolconfig";
const kernel = kernelOrSkip("kernel-config");

/** The agent.hcl part with every commented-out attribute written, nested ones (commented twice) too. */
function uncommentAll(agentHcl: string): string {
  const once = agentHcl.replace(/^(\s*)# (?=\w+ = |\}|\s)/gm, "$1");
  return once === agentHcl ? once : uncommentAll(once);
}

test("kernel-config's output through the kernel's config bridge and global config loader", {
  skip: "skip" in kernel ? kernel.skip : false,
}, async (t) => {
  if ("skip" in kernel) return;
  if ("failure" in kernel) throw kernel.failure;
  const tree = unpackKernel(kernel.snapshot, kernel.goVersion);
  const packageDir = path.join(tree.moduleRoot, goPackage);
  mkdirSync(packageDir, { recursive: true });
  const goSources = path.join(repoRoot, "test/runtime/kernel/go/config");
  for (const name of readdirSync(goSources))
    writeFileSync(path.join(packageDir, name.replace(/\.txt$/, "")), readFileSync(path.join(goSources, name)));

  const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-kernel-config-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const schema = await cli(["schema", path.join(repoRoot, fixture), "--json"]);
  assert.equal(schema.code, 0, schema.err);
  writeFileSync(path.join(dir, "schema.json"), schema.out);
  const devPath = "/opt/providers/config-probe/provider";
  const written = await cli(["kernel-config", path.join(repoRoot, fixture), "--out-dir", dir, "--dev-path", devPath]);
  assert.equal(written.code, 0, written.err);
  const agentHcl = readFileSync(path.join(dir, "agent.hcl"), "utf8");
  const globalHcl = readFileSync(path.join(dir, "config.hcl"), "utf8");

  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const literal = "sk-literal-0123456789abcdef";
  const asWritten = {
    endpoint: "",
    api_key: "key-from-env",
    roots: [],
    max_results: null,
    verbose: null,
    ports: null,
    labels: null,
    region: null,
    backup_key: null,
    upstream: null,
  };
  const secrets = {
    CONFIG_PROBE_API_KEY: "key-from-env",
    CONFIG_PROBE_BACKUP_KEY: "backup-from-env",
    CONFIG_PROBE_UPSTREAM_TOKEN: "token-from-env",
  };
  const manifest = {
    schema: path.join(dir, "schema.json"),
    provider: "config_probe",
    source: "github.com/harness-tool/config-probe",
    version: "~> 1.4.2",
    global: path.join(dir, "config.hcl"),
    devPath,
    misplaced: file("misplaced.hcl", `${agentHcl}\n${globalHcl}`),
    cases: [
      {
        name: "as_written",
        file: path.join(dir, "agent.hcl"),
        env: { CONFIG_PROBE_API_KEY: "key-from-env" },
        want: asWritten,
      },
      {
        name: "every_attribute_uncommented",
        file: file("all.hcl", uncommentAll(agentHcl)),
        env: secrets,
        want: {
          ...asWritten,
          max_results: 500,
          verbose: false,
          ports: [80, 443],
          labels: { team: "tools", env: "${dev}" },
          region: "",
          backup_key: "backup-from-env",
          upstream: { url: "", token: "token-from-env" },
        },
      },
      {
        name: "literal_secret_refused",
        file: file("literal.hcl", agentHcl.replace('env("CONFIG_PROBE_API_KEY")', JSON.stringify(literal))),
        env: {},
        wantError: 'sensitive attribute must be exactly env("NAME")',
        secret: literal,
      },
      {
        name: "unset_variable_refused",
        file: path.join(dir, "agent.hcl"),
        env: {},
        wantError: "environment variable not set",
      },
    ],
  };
  assert.notEqual(uncommentAll(agentHcl), agentHcl);
  assert.ok(manifest.cases[2]!.file && readFileSync(manifest.cases[2]!.file, "utf8").includes(literal));
  const manifestFile = path.join(dir, "manifest.json");
  writeFileSync(manifestFile, JSON.stringify(manifest));

  const result = await runGo(
    tree,
    ["test", "-count=1", "-json", "-v", `./${goPackage}/`],
    goTestEnvironment(tree, { HARNESS_TOOL_CONFIG_MANIFEST: manifestFile }),
  );
  const run = parseGoTestJson(result.stdout);
  for (const line of outcomeLines(run.tests)) console.log(line);
  const ours = run.tests.filter((o) => o.name.startsWith("TestHarnessToolConfig_"));
  assert.ok(
    ours.length >= 2 + manifest.cases.length,
    `the Go tests did not run:\n${run.packageOutput}${result.stderr}`,
  );
  for (const outcome of ours)
    await t.test(outcome.name, () =>
      assert.equal(outcome.action, "pass", `${outcome.name}: ${outcome.action}\n${outcome.output}`),
    );
  assert.equal(result.code, 0, `${run.packageOutput}${result.stderr}`);
});
