// The first hour of a provider author, end to end: pack harness-tool's three packages, then run the
// README's quickstart block exactly as written (with npm's `yes` set to false, as on machines that
// never install without asking): `npx --yes --package <cli> --package <runtime> harness-tool init`,
// the new repository installing all three from their tarballs, install, generate, build, the new
// repository's own tests, and an invoke. Then schema, invoke, check and inspect on the scaffold's
// folder and src/main.ts (the one provider-target rule), `harness-tool check`, `harness-tool inspect`
// from the installed package, the interactive `init` under a pseudo-terminal, and the built
// dist/provider.mjs through every interop host, the go-plugin v1.8.0 host in Go among them, as the
// kernel launches it.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { launch } from "harness-tool/testing";
import { describeProviderInterop } from "../runtime/interop/provider-interop.js";
import { scenario } from "../runtime/interop/host-matrix.js";
import {
  callContext,
  cancellationScenario,
  streamingProcessScenario,
  type ProcessTool,
} from "../runtime/interop/scenarios.js";
import { harnessToolPackages } from "../../cli/templates/package-sources.js";
import { npxInstallsOf } from "../support/npx-installs.js";
import { packWorkspaces } from "../support/pack-workspaces.js";
import { hasScript, runOnTerminal } from "../support/pseudo-terminal.js";
import { readmeExample } from "../support/readme-examples.js";
import { hostPlatformKey, lockFilePlatformKeys } from "../../cli/release/release-platforms.js";
import { repoRoot } from "../support/buf.js";
import { installSupervisorPackage } from "../support/supervisor-package.mjs";

const platform = `${process.platform}-${process.arch}`;
/** The supervisor package's case needs Go (to pack it) and /proc (to see which program runs). */
const supervisorSkip = installSupervisorPackage().reason ?? (process.platform === "linux" ? false : "reads /proc");

/** The scaffold's process-backed tool runs a command without a shell: give it one. */
const runCommand: ProcessTool = {
  tool: "run_command",
  args: (script) => ({ command: "/bin/sh", args: ["-c", script] }),
  exitCode: (payload) => (payload as { exit_code?: unknown }).exit_code,
};

/** The environment of the new repository's commands: this test runner's own markers removed. */
function cleanEnv(): NodeJS.ProcessEnv {
  // NODE_TEST_CONTEXT would make the inner `node --test` report to this runner instead of printing.
  const { NODE_TEST_CONTEXT: _context, NODE_OPTIONS: _options, ...env } = process.env;
  // npm never installs without asking; with nobody to ask it refuses (`npx` without --yes fails).
  return { ...env, npm_config_yes: "false" };
}

/** `node --test`'s summary without a failure: TAP (Node 20 off a terminal) or the spec reporter (Node 23 and later). */
const noFailures = /^(# fail|ℹ fail) 0$/m;

/** A test that passed, as either reporter prints it. */
const passed = (name: string) => new RegExp(`^\\s*(ok \\d+ - |✔ )${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "m");

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: cleanEnv() });
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** What an inspector run from the installed bin served, and how it ended after SIGINT. */
interface InspectRun {
  readonly state: { tools: { name: string }[]; configState: { status: string } };
  readonly err: string;
  readonly code: number | null;
}

/**
 * Runs the installed bin itself, not npx (SIGINT must reach the inspector; npm exec does not pass it
 * on), waits for its URL, reads api/state (and runs `check` on the URL), then stops it with SIGINT.
 */
async function inspectFromBin(
  bin: string,
  argv: string[],
  cwd: string,
  check?: (url: string) => Promise<void>,
): Promise<InspectRun> {
  const child = spawn(bin, argv, { cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  let state: InspectRun["state"];
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        const found = /http:\/\/127\.0\.0\.1:\d+\/[\w-]+\//.exec(out);
        if (found) resolve(found[0]);
      });
      void exited.then((code) =>
        reject(new Error(`inspect exited with ${code} before printing its URL:\n${out}\n${err}`)),
      );
    });
    await check?.(url);
    state = (await (await fetch(new URL("api/state", url))).json()) as InspectRun["state"];
  } finally {
    child.kill("SIGINT");
  }
  return { state, err, code: await exited };
}

describe("harness-tool init, end to end", () => {
  let dir = "";
  let quickstart = "";
  let tarball = "";
  const tarballs: Record<"runtime" | "plugin" | "cli", string> = { runtime: "", plugin: "", cli: "" };
  let repo = "";
  let quickstartOutput = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-e2e-"));
    const packed = packWorkspaces(path.join(dir, "packed"));
    // The README: copy the three tarballs into an empty folder and run the quickstart from there.
    quickstart = path.join(dir, "quickstart");
    mkdirSync(quickstart);
    for (const which of ["runtime", "plugin", "cli"] as const) {
      tarballs[which] = path.join(quickstart, path.basename(packed[which]));
      copyFileSync(packed[which], tarballs[which]);
    }
    tarball = tarballs.cli;
    // npx keys its cache by the specs as typed (./harness-tool-cli-0.1.0.tgz ...), so a run that was killed
    // before its cleanup would hand this run its stale install: start without it.
    for (const install of npxInstallsOf(tarball)) rmSync(install, { recursive: true, force: true });
    quickstartOutput = run("bash", ["-euo", "pipefail", "-c", readmeExample("quickstart")], quickstart);
    repo = path.join(quickstart, "notes");
  });
  /** npx's flags for the CLI and the runtime tarballs, as the README's quickstart gives them. */
  const npxPackages = () => [
    "--yes",
    "--package",
    `./${path.basename(tarballs.cli)}`,
    "--package",
    `./${path.basename(tarballs.runtime)}`,
  ];
  after(() => {
    for (const install of npxInstallsOf(tarball)) rmSync(install, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs the README quickstart as written: installs the three packages from the tarballs beside the one npx ran, builds, tests, invokes", () => {
    const pkg = JSON.parse(readFileSync(path.join(repo, "package.json"), "utf8")) as {
      name: string;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    assert.equal(pkg.name, "provider-notes");
    // Relative to the repository, as npx was given them relative to the folder it ran in.
    assert.equal(pkg.dependencies[harnessToolPackages.runtime], `file:../${path.basename(tarballs.runtime)}`);
    assert.equal(pkg.devDependencies[harnessToolPackages.plugin], `file:../${path.basename(tarballs.plugin)}`);
    assert.equal(pkg.devDependencies[harnessToolPackages.cli], `file:../${path.basename(tarballs.cli)}`);
    assert.deepEqual(JSON.parse(readFileSync(path.join(repo, "dev-config.json"), "utf8")), { roots: ["."] });
    // The runtime is what runs: the CLI's and the plugin's dependencies stay out of --omit=dev.
    const installed = JSON.parse(run("npm", ["ls", "--omit=dev", "--all", "--json"], repo)) as {
      dependencies?: Record<string, unknown>;
    };
    const names = JSON.stringify(installed);
    for (const heavy of ["ts-morph", "esbuild", "typescript", "@clack/prompts", "json-schema-to-typescript"])
      assert.ok(!names.includes(`"${heavy}"`), `--omit=dev keeps ${heavy}`);
    assert.ok(names.includes('"@grpc/grpc-js"'));
    // Every install script of the repository's dependencies is reviewed in its allowScripts
    // (npm >= 11.16 lists the others; an older npm has no install-scripts command).
    const reviewed = spawnSync("npm", ["install-scripts", "ls"], { cwd: repo, encoding: "utf8", env: cleanEnv() });
    if (reviewed.status === 0)
      assert.doesNotMatch(reviewed.stdout + reviewed.stderr, /not yet covered/, reviewed.stdout);
    // The scaffold's default: protoc-gen-harness-tool alone, JavaScript with declarations.
    assert.deepEqual(readdirSync(path.join(repo, "src/gen/notes/v1")).sort(), [
      "notes_tool.d.ts",
      "notes_tool.js",
      "notes_tool_schemas.d.ts",
      "notes_tool_schemas.js",
    ]);
    assert.match(quickstartOutput, noFailures);
    // The default examples include the hook example: its tests ran in the new repository.
    assert.match(quickstartOutput, passed("vetoes a plan that touches a path outside the roots"));
    assert.match(quickstartOutput, passed("writes an audit line through the kernel's Log after a tool call"));
    // And the interactive example's: its prompt served as Preview, a person's answer checked.
    assert.match(
      quickstartOutput,
      passed("shows ask_user's question as its prompt: the Preview the kernel's frontend shows the person"),
    );
    assert.match(
      quickstartOutput,
      passed("takes a person's answer only when it matches ask_user's output schema, as the kernel does"),
    );
    assert.match(quickstartOutput, /"found": false/);
    // npm run release, the block's last line, recorded the baseline after the release succeeded.
    assert.match(quickstartOutput, /^wrote schema\/tools\.json, the first snapshot of the tool surface: commit it$/m);
  });

  let copy = "";
  it("travels: a copy moved elsewhere with its tarballs installs, says to generate before building, builds and passes its tests", () => {
    // As a teammate gets it: the committed files (no node_modules, dist or src/gen) beside the tarballs.
    const moved = path.join(dir, "elsewhere/deeper");
    mkdirSync(moved, { recursive: true });
    for (const file of Object.values(tarballs)) copyFileSync(file, path.join(moved, path.basename(file)));
    copy = path.join(moved, "notes");
    cpSync(repo, copy, { recursive: true, filter: (from) => !/[/\\](node_modules|dist|gen|release)$/.test(from) });
    for (const file of ["package.json", "package-lock.json", "dev-config.json"]) {
      assert.ok(
        !readFileSync(path.join(copy, file), "utf8").includes(quickstart),
        `${file} names the folder it was written in`,
      );
    }
    run("npm", ["install"], copy);
    // npm run build before npm run generate: one line saying what to do, not the compiler's errors.
    const early = spawnSync("npm", ["run", "build"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.notEqual(early.status, 0);
    assert.match(early.stderr, /^harness-tool sync: src\/gen\/ is missing: run npm run generate first/m);
    assert.doesNotMatch(early.stdout + early.stderr, /error TS/);
    const output = run(
      "bash",
      ["-euo", "pipefail", "-c", "npm run generate && npm run build && npm test && npm run check"],
      copy,
    );
    assert.match(output, noFailures);
    assert.match(output, /rules: \d+ pass, 0 fail/);
  });

  it("before the first release: no baseline, so a risk raised builds; a proto changed without npm run generate is refused by build and sync", () => {
    // The copy as it was before anything shipped: no schema/tools.json.
    rmSync(path.join(copy, "schema"), { recursive: true, force: true });
    const protoFile = path.join(copy, "proto/notes/v1/notes.proto");
    const proto = readFileSync(protoFile, "utf8");
    writeFileSync(protoFile, proto.replace("risk: RISK_CLASS_LOW", "risk: RISK_CLASS_HIGH"));
    // Not regenerated: the build stops before compiling, naming the proto and npm run generate.
    const stale = spawnSync("npm", ["run", "build"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.notEqual(stale.status, 0, stale.stdout);
    assert.match(
      stale.stderr,
      /^harness-tool sync: src\/gen\/ is older than its protos \(proto\/notes\/v1\/notes\.proto changed since it was generated\): run npm run generate$/m,
    );
    const bin = path.join(copy, "node_modules/.bin/harness-tool");
    const sync = spawnSync(bin, ["sync", "src/handlers.ts"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.equal(sync.status, 1, sync.stdout + sync.stderr);
    assert.doesNotMatch(sync.stdout, /up to date/);
    assert.match(sync.stderr, /older than its protos .*: run npm run generate, then sync again$/m);
    // Regenerated: the risk raised is no failure, nothing having shipped; the build says so and writes no baseline.
    run("npm", ["run", "generate"], copy);
    const build = spawnSync("npm", ["run", "build"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.equal(build.status, 0, build.stdout + build.stderr);
    assert.match(
      build.stderr,
      /^harness-tool diff: no baseline schema\/tools\.json yet, nothing to guard: the first release records it/m,
    );
    assert.equal(existsSync(path.join(copy, "schema/tools.json")), false);
    // The committed docs still say risk low: npm test ends with docs --check, which names the page and what to run.
    const staleDocs = spawnSync("npm", ["test"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.notEqual(staleDocs.status, 0, staleDocs.stdout);
    assert.match(staleDocs.stderr, /^harness-tool docs: docs\/tools\/save_note\.md: differs$/m);
    assert.match(
      staleDocs.stderr,
      /^harness-tool docs: the docs are out of date: run harness-tool docs dist\/provider\.mjs --config dev-config\.json and commit them$/m,
    );
    run("npm", ["run", "docs"], copy);
    assert.match(
      readFileSync(path.join(copy, "docs", "README.md"), "utf8"),
      /\| \[`save_note`\]\(tools\/save_note\.md\) \| resource \| high \|/,
    );
    const tested = run("npm", ["test"], copy);
    assert.match(tested, noFailures);
    assert.match(tested, /no schema\/tools\.json yet: the first npm run release \(or npm run snapshot\) records it/);
    // npm run snapshot records the baseline; from then on the build guards it.
    run("npm", ["run", "snapshot"], copy);
    assert.equal(
      readFileSync(path.join(copy, "schema/tools.json"), "utf8"),
      run(bin, ["schema", "dist/provider.mjs", "--json"], copy),
    );
    writeFileSync(protoFile, proto);
    run("npm", ["run", "generate"], copy);
    const lowered = spawnSync("npm", ["run", "build"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.equal(lowered.status, 0, "a risk lowered is compatible");
    writeFileSync(protoFile, proto.replace("risk: RISK_CLASS_LOW", "risk: RISK_CLASS_HIGH"));
    run("npm", ["run", "generate"], copy);
    const raised = spawnSync("npm", ["run", "build"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.notEqual(raised.status, 0, raised.stdout);
    assert.match(
      raised.stderr,
      /^harness-tool diff: 1 breaking or risk-raising change: accept with --allow risk-raised:save_note$/m,
    );
  });

  it("a provider that cannot start: the scaffold's test fails first with the provider's own error, the others skipped naming it", () => {
    writeFileSync(
      path.join(copy, "src/load-failure.ts"),
      'throw new Error("db_path: unable to open database file (the provider\'s own load error)");\nexport {};\n',
    );
    const main = path.join(copy, "src/main.ts");
    // After the #! line, which must stay first.
    writeFileSync(main, readFileSync(main, "utf8").replace("\n", '\nimport "./load-failure.js";\n'));
    // The build's diff launches the provider once a baseline exists: before a release it does not.
    rmSync(path.join(copy, "schema"), { recursive: true, force: true });
    run("npm", ["run", "build"], copy);
    const tested = spawnSync("npm", ["test"], { cwd: copy, encoding: "utf8", env: cleanEnv() });
    assert.notEqual(tested.status, 0);
    const text = tested.stdout + tested.stderr;
    assert.doesNotMatch(text, /did not finish before its parent and was cancelled/);
    // Whatever the reporter: the one failure is the start test, with the provider's error; every other test is skipped naming it.
    assert.match(text, /the provider's own load error/);
    assert.match(text, /starts from dist\/provider\.mjs and accepts its configuration/);
    assert.match(text, /^(# fail|ℹ fail) 1$/m);
    assert.ok((text.match(/the provider did not start: see the first test/g)?.length ?? 0) >= 5, text);
  });

  it("ask_user's Invoke, the development fallback, asks on the terminal it was started from, and says plainly when there is none", async () => {
    const bin = path.join(repo, "node_modules/.bin/harness-tool");
    const args = [
      "invoke",
      "dist/provider.mjs",
      "ask_user",
      "--config",
      "dev-config.json",
      "--args",
      '{"question": "Ship it?"}',
    ];
    if (hasScript() || process.env["CI"]) {
      const session = runOnTerminal(bin, args, { cwd: repo, env: cleanEnv() });
      try {
        await session.waitFor(/Ship it\?\s*\n> /);
        session.type("yes, ship\r");
        assert.equal(await session.exited, 0, session.screen());
      } finally {
        session.kill();
      }
      assert.match(session.screen(), /"answer": "yes, ship"/);
    }
    // A new session (setsid) has no controlling terminal, as under a headless kernel or CI.
    const headless = spawn(bin, args, {
      cwd: repo,
      env: cleanEnv(),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    headless.stdout.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    headless.stderr.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => headless.once("close", resolve));
    assert.notEqual(code, 0, text);
    assert.match(
      text,
      /no terminal to ask on: under the kernel a person answers an interactive call through its frontend/,
    );
  });

  it("the quickstart's release: every lock-file platform's checksum; this platform's executable, in SHA256SUMS and the lock block, serves with no node on PATH", async () => {
    const host = hostPlatformKey();
    if (host === undefined) return;
    const release = path.join(repo, "release");
    const executable = path.join(release, `notes_0.1.0_${host}`);
    const sha256 = createHash("sha256").update(readFileSync(executable)).digest("hex");
    assert.ok(readFileSync(path.join(release, "SHA256SUMS"), "utf8").includes(`${sha256}  notes_0.1.0_${host}\n`));
    const lock = readFileSync(path.join(release, "agent.lock.hcl"), "utf8");
    assert.match(
      lock,
      /^provider "notes" \{\n {2}source {6}= "github\.com\/you\/provider-notes"\n {2}version {5}= "0\.1\.0"\n/m,
    );
    // The keys are padded to the longest, so the equals signs line up.
    assert.match(lock, new RegExp(`\n {4}"${host}" += "sha256:${sha256}"\n`), `${host}'s checksum`);
    for (const key of lockFilePlatformKeys) {
      assert.match(lock, new RegExp(`\n {4}"${key}" += "sha256:[0-9a-f]{64}"\n`), `${key} in the lock block`);
      assert.ok(existsSync(path.join(release, `notes_0.1.0_${key}`)), `notes_0.1.0_${key} built`);
    }
    const emptyPath = mkdtempSync(path.join(tmpdir(), "harness-tool-no-node-"));
    const launched = await launch(executable, { env: { PATH: emptyPath } });
    try {
      assert.deepEqual((await launched.describe()).producer?.name, "notes");
      assert.ok((await launched.getSchema()).tools.some((t) => t.name === "read_note"));
    } finally {
      await launched.kill();
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });

  it("passes harness-tool check, the hook example's points included", () => {
    const out = run("npm", ["run", "check"], repo);
    assert.match(out, /rules: \d+ pass, 0 fail/);
    assert.match(out, /hooks\.point:plan-ready\s.*\spass\s/);
    assert.match(out, /hooks\.point:post-tool-call\s.*\spass\s/);
    // ask_user's prompt is its Preview: check asks for it.
    assert.match(out, /preview\.valid:ask_user\s.*\spass\s/);
  });

  it("fires the hook example's veto by hand with harness-tool hook, as the scaffold's README shows", () => {
    const plan = path.join(repo, "plan.json");
    writeFileSync(
      plan,
      JSON.stringify({ plan: { items: [{ id: "1", toolName: "save_note", input: { path: "/etc/passwd" } }] } }),
    );
    const bin = path.join(repo, "node_modules/.bin/harness-tool");
    assert.equal(
      run(
        bin,
        ["hook", "dist/provider.mjs", "plan-ready", "--mode", "veto", "--payload", plan, "--config", "dev-config.json"],
        repo,
      ),
      "veto: deny\n",
    );
    assert.match(
      readFileSync(path.join(repo, "README.md"), "utf8"),
      /npx harness-tool hook dist\/provider\.mjs plan-ready --mode veto --payload plan\.json --config dev-config\.json/,
    );
  });

  it("every command takes the scaffold's folder and src/main.ts (through the tsx the CLI brings) as well as dist/provider.mjs", async () => {
    const bin = path.join(repo, "node_modules/.bin/harness-tool");
    for (const target of [".", "src/main.ts"]) {
      assert.match(run(bin, ["schema", target], repo), /^read_note\s/m, `schema ${target}`);
      assert.match(
        run(bin, ["invoke", target, "read_note", "--config", "dev-config.json", "--args", '{"title": "hello"}'], repo),
        /"found": false/,
      );
      assert.match(
        run(bin, ["check", target, "--config", "dev-config.json"], repo),
        /rules: \d+ pass, 0 fail/,
        `check ${target}`,
      );
    }
    const inspect = await inspectFromBin(bin, ["inspect", "src/main.ts", "--config", "dev-config.json"], repo);
    assert.ok(
      inspect.state.tools.some((t) => t.name === "read_note"),
      JSON.stringify(inspect.state.tools),
    );
    assert.doesNotMatch(inspect.err, /install/, "a scaffold runs its sources without installing anything more");
    assert.match(
      inspect.err,
      /launching \S+node --import \S+node_modules\/tsx\/dist\/esm\/index\.mjs \S+src\/main\.ts/,
    );
    assert.equal(inspect.code, 0, inspect.err);
  });

  // CI always has util-linux's `script` (Debian's bsdutils); a machine without it skips.
  const terminal = hasScript() || process.env["CI"] ? {} : { skip: "util-linux's script is not installed" };

  it(
    "on a terminal: asks for what the flags did not give, defaulting to the tarballs' folder npx ran from",
    terminal,
    async () => {
      const session = runOnTerminal(
        "npx",
        [...npxPackages(), "harness-tool", "init", "--examples", "data_source,resource"],
        {
          cwd: quickstart,
          env: cleanEnv(),
        },
      );
      try {
        await session.waitFor(/Provider name/);
        session.type("my_notes\r");
        await session.waitFor(/Directory[\s\S]*my_notes/);
        session.type("\r");
        await session.waitFor(/Source address[\s\S]*github\.com\/you\/provider-my-notes/);
        session.type("\r");
        await session.waitFor(/Install harness-tool's packages from[\s\S]*file:\.\//);
        session.type("\r");
        assert.equal(await session.exited, 0, session.screen());
      } finally {
        session.kill();
      }
      assert.doesNotMatch(session.screen(), /Examples \(tools/, "--examples was given: no question about it");
      const created = path.join(quickstart, "my_notes");
      const pkg = JSON.parse(readFileSync(path.join(created, "package.json"), "utf8")) as {
        name: string;
        dependencies: Record<string, string>;
        devDependencies: Record<string, string>;
      };
      assert.equal(pkg.name, "provider-my-notes");
      assert.equal(pkg.dependencies[harnessToolPackages.runtime], `file:../${path.basename(tarballs.runtime)}`);
      assert.equal(pkg.devDependencies[harnessToolPackages.plugin], `file:../${path.basename(tarballs.plugin)}`);
      const proto = readFileSync(path.join(created, "proto/my_notes/v1/my_notes.proto"), "utf8");
      assert.match(proto, /source: "github\.com\/you\/provider-my-notes"/);
      assert.match(proto, /rpc ReadNote/);
      assert.match(proto, /rpc SaveNote/);
      assert.doesNotMatch(proto, /rpc RunCommand|rpc AskUser/);
    },
  );

  it("on a terminal: offers the hook example, and asks again when it is chosen without a tool", terminal, async () => {
    const session = runOnTerminal(
      "npx",
      [
        ...npxPackages(),
        "harness-tool",
        "init",
        "hooked",
        "--name",
        "hooked",
        "--source",
        "github.com/acme/hooked",
        "--harness-tool",
        `file:${quickstart}`,
      ],
      { cwd: quickstart, env: cleanEnv() },
    );
    try {
      await session.waitFor(/Examples \(tools[\s\S]*hook subscriptions/);
      // Everything is chosen at first: "a" clears it, four downs reach hook, space takes it alone.
      session.type("a\x1b[B\x1b[B\x1b[B\x1b[B \r");
      // Asked again (the question drawn after the warning), everything chosen: take that.
      await session.waitFor(/hook needs a tool beside it[\s\S]*Examples \(tools/);
      session.type("\r");
      assert.equal(await session.exited, 0, session.screen());
    } finally {
      session.kill();
    }
    const created = path.join(quickstart, "hooked");
    const proto = readFileSync(path.join(created, "proto/hooked/v1/hooked.proto"), "utf8");
    assert.match(proto, /supported_hook_points: \[HOOK_POINT_PLAN_READY, HOOK_POINT_POST_TOOL_CALL\]/);
    assert.match(readFileSync(path.join(created, "src/handlers.ts"), "utf8"), /^ {2}hooks: \{$/m);
  });

  it("on a terminal: Ctrl-C at a question cancels with exit 130 and writes nothing", terminal, async () => {
    const session = runOnTerminal("npx", [...npxPackages(), "harness-tool", "init", "cancelled"], {
      cwd: quickstart,
      env: cleanEnv(),
    });
    try {
      await session.waitFor(/Provider name/);
      session.type("\x03");
      assert.equal(await session.exited, 130, session.screen());
    } finally {
      session.kill();
    }
    assert.match(session.screen(), /cancelled/);
    assert.equal(existsSync(path.join(quickstart, "cancelled")), false);
  });

  it("serves the inspector page from the installed package, token-only, and stops on SIGINT", async () => {
    const bin = path.join(repo, "node_modules/.bin/harness-tool");
    const inspect = await inspectFromBin(
      bin,
      ["inspect", "dist/provider.mjs", "--config", "dev-config.json"],
      repo,
      async (url) => {
        const page = await fetch(url);
        assert.equal(page.status, 200);
        assert.match(await page.text(), /inspector\.js/);
        assert.equal((await fetch(new URL("inspector.js", url))).status, 200);
        assert.equal((await fetch(new URL("/inspector.js", url))).status, 404);
      },
    );
    assert.ok(
      inspect.state.tools.some((t) => t.name === "read_note"),
      JSON.stringify(inspect.state.tools),
    );
    assert.equal(inspect.state.configState.status, "accepted");
    assert.equal(inspect.code, 0, inspect.err);
  });

  it("keeps the kernel's config and the tool surface beside the provider: kernel/agent.hcl as kernel-config writes it, schema/tools.json guarded by diff", () => {
    const bin = path.join(repo, "node_modules/.bin/harness-tool");
    // init's kernel files are what kernel-config writes from the built provider's Describe and ConfigSchema.
    const written = path.join(dir, "kernel-config");
    run(bin, ["kernel-config", "dist/provider.mjs", "--out-dir", written], repo);
    // kernel/agent.hcl travels with the repository; the dev_overrides part names this machine's
    // absolute path, so init leaves it to kernel-config.
    assert.equal(
      readFileSync(path.join(repo, "kernel/agent.hcl"), "utf8"),
      readFileSync(path.join(written, "agent.hcl"), "utf8"),
    );
    assert.equal(existsSync(path.join(repo, "kernel/config.hcl")), false);
    assert.match(
      readFileSync(path.join(written, "config.hcl"), "utf8"),
      /^dev_overrides \{\n {2}\w+ = "\/.*\/dist\/provider\.mjs"$/m,
    );
    // The quickstart's npm run release recorded the surface the provider serves.
    const snapshot = path.join(repo, "schema/tools.json");
    const recorded = readFileSync(snapshot, "utf8");
    assert.equal(recorded, run(bin, ["schema", "dist/provider.mjs", "--json"], repo));
    // The protos generated with the installed plugin and served give the built provider's surface.
    assert.equal(run(bin, ["diff", "protos:.", "dist/provider.mjs"], repo), "no changes\n");
    run("git", ["init", "-q"], repo);
    run("git", ["add", "."], repo);
    run("git", ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "init"], repo);
    // A risk raised: the build fails naming the change, the snapshot stays, npm test fails until it is accepted.
    const protoFile = path.join(repo, "proto/notes/v1/notes.proto");
    writeFileSync(protoFile, readFileSync(protoFile, "utf8").replace("risk: RISK_CLASS_LOW", "risk: RISK_CLASS_HIGH"));
    const fromGit = spawnSync(bin, ["diff", "git:HEAD", "protos:.", "--json"], {
      cwd: repo,
      encoding: "utf8",
      env: cleanEnv(),
    });
    assert.equal(fromGit.status, 1, fromGit.stderr);
    assert.deepEqual((JSON.parse(fromGit.stdout) as { blocking: string[] }).blocking, ["risk-raised:save_note"]);
    run("npm", ["run", "generate"], repo);
    const build = spawnSync("npm", ["run", "build"], { cwd: repo, encoding: "utf8", env: cleanEnv() });
    assert.notEqual(build.status, 0, build.stdout);
    assert.match(build.stdout, /^risk +risk-raised +save_note +low → high$/m);
    assert.match(
      build.stderr,
      /^harness-tool diff: 1 breaking or risk-raising change: accept with --allow risk-raised:save_note$/m,
    );
    assert.equal(readFileSync(snapshot, "utf8"), recorded);
    const drifted = spawnSync("npm", ["test"], { cwd: repo, encoding: "utf8", env: cleanEnv() });
    assert.notEqual(drifted.status, 0);
    assert.match(drifted.stdout, /the provider's tool surface differs from schema\/tools\.json/);
    run(
      bin,
      [
        "diff",
        "schema/tools.json",
        "dist/provider.mjs",
        "--allow",
        "risk-raised:save_note",
        "--update",
        "schema/tools.json",
      ],
      repo,
    );
    // The docs follow the proto too (npm test ends with docs --check).
    run("npm", ["run", "docs"], repo);
    assert.match(run("npm", ["test"], repo), noFailures);
  });

  describeProviderInterop({
    name: "the scaffold's dist/provider.mjs",
    provider: () => ({ name: "scaffold", command: path.join(repo, "dist/provider.mjs"), args: [], cwd: repo }),
    scenarios: (id, host) => {
      // The process scenarios run their commands in /tmp, so it is a root beside the repository.
      scenario(id, "Configure with dev-config.json's roots and /tmp", async () => {
        assert.equal((await host().configure({ roots: [repo, "/tmp"] })).code, 0);
      });
      scenario(id, "read_note: one result event", async () => {
        const outcome = await host().invoke({
          id: "read-1",
          toolName: "read_note",
          arguments: { title: "absent" },
          callContext: { ...callContext("s-notes"), workingDirectory: repo },
        });
        assert.equal(outcome.events.length, 1);
        const [event] = outcome.events;
        assert.equal(event?.event.case === "result" ? event.event.value.payload?.found : event?.event.case, false);
      });
      scenario(id, "run_command streams its output in order, one exit_status, then the result", () =>
        streamingProcessScenario(host(), runCommand),
      );
      scenario(id, "run_command cancelled mid-stream: no terminal event, the child processes are gone", () =>
        cancellationScenario(host(), runCommand, 0),
      );
    },
  });

  it("with the platform's supervisor package installed from its tarball, the Go program supervises: a secret on fd 2 is redacted", {
    skip: supervisorSkip,
  }, async () => {
    // The package as a release packs it (its prepack builds the binary), from a copy of supervisor-go.
    const source = path.join(dir, "supervisor-go");
    cpSync(path.join(repoRoot, "supervisor-go"), source, { recursive: true, filter: (f) => !f.endsWith("/bin") });
    // prepack's own output comes first on stdout; the JSON report is the rest.
    const packOutput = run("npm", ["pack", "--json", "--pack-destination", dir], path.join(source, "npm", platform));
    const packed = JSON.parse(packOutput.slice(packOutput.indexOf("[\n"))) as { filename: string }[];
    // The registry does not hold it: installed from the tarball, it satisfies the runtime's optional dependency.
    run("npm", ["install", "--no-save", path.join(dir, packed[0]?.filename ?? "")], repo);
    const binary = realpathSync(
      path.join(repo, "node_modules/@harness-tool", `supervisor-${platform}`, "bin/harness-tool-supervisor"),
    );
    // A provider that writes its configured secret to fd 2 below process.stderr.write.
    const leak = path.join(repo, "leak-provider.mjs");
    writeFileSync(leak, leakProvider);
    const secret = "sk-live-9d2c4b7a1e3f";
    const provider = await launch(process.execPath, { args: [leak], cwd: repo });
    try {
      assert.equal(realpathSync(`/proc/${provider.pid}/exe`), binary, "the launched process is the Go program");
      await provider.configure({ api_key: secret });
      const outcome = await provider.invoke({ id: "leak", toolName: "leak", arguments: {} }).done;
      assert.equal(outcome.events.at(-1)?.event.case, "result");
      const line = () => provider.stderr.find((e) => e.raw.includes("leak:"));
      for (let waited = 0; line() === undefined && waited < 5000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(line()?.raw ?? "(no leak line)", /leak: \[REDACTED\]/);
      assert.ok(!provider.stderr.some((e) => e.raw.includes(secret)), "the secret reached the host");
    } finally {
      await provider.kill();
    }
    // The scaffold's build now carries the program beside dist/provider.mjs, which sh starts first.
    run("npm", ["run", "build"], repo);
    const bundled = await launch(path.join(repo, "dist/provider.mjs"), { cwd: repo });
    try {
      assert.equal(
        readlinkSync(`/proc/${bundled.pid}/exe`),
        path.join(repo, "dist", `harness-tool-supervisor-${platform}`),
      );
    } finally {
      await bundled.kill();
    }
  });
});

/** A provider whose one tool writes the configured api_key to fd 2 with fs.writeSync. */
const leakProvider = `import { writeSync } from "node:fs";
import { defineProvider, defineTool, serve } from "harness-tool";
let apiKey = "";
const leak = defineTool()({
  name: "leak",
  kind: "data_source",
  risk: "read_only",
  description: "Writes the configured api_key to fd 2.",
  inputSchema: { type: "object", properties: {} },
  outputSchema: { type: "object", properties: { written: { type: "boolean" } }, required: ["written"] },
  concurrency: { safe: true },
  idempotent: true,
  defaultTimeoutMs: 10000,
});
const config = {
  attributes: [{ name: "api_key", type: "string", required: true, sensitive: true, description: "A secret." }],
  decode: (value) => {
    apiKey = String(value.api_key);
    return { ok: true, value };
  },
};
const tools = { leak: async () => (writeSync(2, "leak: " + apiKey + "\\n"), { written: true }) };
serve(defineProvider({ name: "leak", version: "0.0.1", source: "github.com/harness-tool/test-leak", tools: { leak }, config }, tools));
`;
