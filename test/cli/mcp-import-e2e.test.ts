// An imported provider built as its author builds it: harness-tool's three packages packed, then
// `npx harness-tool mcp import` of the MCP project's memory server (a devDependency) into a folder
// outside the repository, the new repository installed from the tarballs, the next steps the import
// printed run as printed (install, generate, build, docs, its own tests ending with docs --check),
// `npm run check`, `npm run release -- --platform <host>`, and the release launched by the kernel's
// own pluginruntime.Launch (its source snapshot, built with Go) from a folder of its own, configured
// with nothing, answering create_entities with what the server answers.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { hostPlatformKey } from "../../cli/release/release-platforms.js";
import { kernelSkip } from "../runtime/kernel/kernel-snapshot.js";
import { repoRoot } from "../support/buf.js";
import { npxInstallsOf } from "../support/npx-installs.js";
import { packWorkspaces } from "../support/pack-workspaces.js";
import { launchByKernel } from "./support/kernel-corpus.js";

const serverEntry = path.join(repoRoot, "node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const host = hostPlatformKey();
// The node binaries a release downloads, unpacked once for every run on this machine.
process.env.HARNESS_TOOL_NODE_CACHE ??= path.join(tmpdir(), "harness-tool-node-binaries");

/** The environment of the new repository's commands: this test runner's own markers removed. */
function cleanEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _context, NODE_OPTIONS: _options, ...env } = process.env;
  return env;
}

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: cleanEnv(), timeout: 600_000 });
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout + result.stderr;
}

describe("mcp import, end to end: the imported repository's own path, from the tarballs to the kernel", () => {
  let dir = "";
  let cliTarball = "";
  let runtimeTarball = "";
  let repo = "";
  let imported = "";
  let release = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-mcp-e2e-"));
    const packed = packWorkspaces(path.join(dir, "packed"));
    const work = path.join(dir, "work");
    mkdirSync(work);
    for (const which of ["runtime", "plugin", "cli"] as const)
      copyFileSync(packed[which], path.join(work, path.basename(packed[which])));
    cliTarball = path.join(work, path.basename(packed.cli));
    runtimeTarball = path.basename(packed.runtime);
    for (const install of npxInstallsOf(cliTarball)) rmSync(install, { recursive: true, force: true });
    // The server's command line is the node running this test: the kernel's PATH holds no node.
    imported = run(
      "npx",
      [
        "--yes",
        "--package",
        `./${path.basename(packed.cli)}`,
        "--package",
        `./${path.basename(packed.runtime)}`,
        "harness-tool",
        "mcp",
        "import",
        "memory",
        `--env=MEMORY_FILE_PATH=${path.join(dir, "memory.jsonl")}`,
        "--",
        process.execPath,
        serverEntry,
      ],
      work,
    );
    repo = path.join(work, "memory");
  });
  after(() => {
    if (cliTarball !== "")
      for (const install of npxInstallsOf(cliTarball)) rmSync(install, { recursive: true, force: true });
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("runs the next steps the import printed, as printed: install from the tarballs, generate, build, docs, test", () => {
    assert.match(imported, /^imported 9 tools into /m);
    const steps = imported
      .slice(imported.indexOf("\nNext: "))
      .split("\n")
      .filter((line) => line.startsWith("  "))
      .map((line) => line.trim());
    assert.deepEqual(steps, ["npm install", "npm run generate && npm run build && npm run docs && npm test"]);
    const pkg = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    assert.equal(pkg.dependencies["harness-tool"], `file:../${runtimeTarball}`);
    const output = run("bash", ["-euo", "pipefail", "-c", steps.join("\n")], repo);
    assert.match(output, /^(# fail|ℹ fail) 0$/m);
    assert.match(output, /^(# pass|ℹ pass) 2$/m);
    // docs --check, npm test's last step, passed on the pages npm run docs wrote, one per tool.
    assert.equal(readdirSync(path.join(repo, "docs/tools")).length, 9);
    assert.doesNotMatch(output, /harness-tool docs: .*differs|out of date/);
  });

  it("npm run check, as its README says next: the rules pass on the build", () => {
    assert.match(run("npm", ["run", "check"], repo), /^rules: \d+ pass, 0 fail/m);
  });

  it("npm run release -- --platform <host> writes the release and records the baseline", {
    skip: host === undefined ? "no release platform for this machine" : false,
  }, () => {
    const output = run("npm", ["run", "release", "--", "--platform", host as string], repo);
    release = path.join(repo, "release", `memory_0.1.0_${host}`);
    assert.ok(existsSync(release), output);
    assert.match(output, /^wrote schema\/tools\.json, the first snapshot of the tool surface: commit it$/m);
  });

  it("the kernel's pluginruntime.Launch starts the release from a folder of its own and it answers a call", {
    skip: host === undefined ? "no release platform for this machine" : kernelSkip(),
    timeout: 600_000,
  }, async () => {
    assert.ok(release !== "" && existsSync(release), "the release was built above");
    const installed = path.join(dir, "installed");
    mkdirSync(installed);
    const executable = path.join(installed, path.basename(release));
    copyFileSync(release, executable);
    chmodSync(executable, 0o755);
    const home = path.join(dir, "home");
    mkdirSync(home);
    const observation = "imported end to end";
    const { code, output } = await launchByKernel(
      [
        {
          name: "memory",
          executable,
          home,
          tool: "create_entities",
          args: { entities: [{ name: "harness", entityType: "tool", observations: [observation] }] },
          config: {},
          expect: observation,
        },
      ],
      "mcp-import-e2e-tree",
    );
    assert.equal(code, 0, output);
    assert.match(output, /--- PASS: TestHarnessToolCorpus_launchAndCall\/memory /, output);
    // The server the release started wrote the entity where the import's --env said.
    assert.match(readFileSync(path.join(dir, "memory.jsonl"), "utf8"), /imported end to end/);
  });
});
