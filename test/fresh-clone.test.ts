// What a new user runs in this repository, run as they run it: a fresh `git clone` of the working
// tree into a temp dir, `npm ci`, then every command the README and docs/ tell a user to run here
// (npm run demo, bundling and launching an example, inspecting an example, npm run bench -- --quick,
// npm run generate), each with an environment stripped of what the test runner adds (NODE_OPTIONS,
// NODE_TEST_CONTEXT, npm's npm_* variables, the HARNESS_TOOL_* switches). No dist/ exists in the
// clone until a command the README names builds one, so a command that only works after
// `npm run build`, or only with the runner's export condition, fails here.
import assert from "node:assert/strict";
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, it } from "node:test";
import { repoRoot } from "./support/buf.js";
import { readmeExample } from "./support/readme-examples.js";

/** The variables a user's plain shell has; nothing the test runner or npm put in. */
function userEnvironment(): NodeJS.ProcessEnv {
  // NODE_EXTRA_CA_CERTS is the machine's trust, not the runner's: behind a TLS-inspecting proxy
  // npm reaches the registry only with it (the quickstart's npm install in a new repository does).
  const machine = ["NODE_EXTRA_CA_CERTS"];
  const keep = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "TERM",
    "GOPATH",
    "GOMODCACHE",
    "GOCACHE",
    "GOFLAGS",
    "GOPROXY",
    ...machine,
  ];
  const env: NodeJS.ProcessEnv = {};
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  // The runner's additions must not leak in through the kept variables either.
  assert.ok(
    !Object.keys(env).some(
      (k) => !machine.includes(k) && (k.startsWith("NODE_") || k.startsWith("npm_") || k.startsWith("HARNESS_TOOL_")),
    ),
  );
  return env;
}

let dir = "";
let clone = "";
const env = userEnvironment();

/** Runs a command in the clone as a user would and returns what it printed. */
function run(command: string, args: readonly string[], timeout = 300_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd: clone, env, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 });
}

function shown(r: SpawnSyncReturns<string>): string {
  return `exit ${r.status} ${r.signal ?? ""}\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n${r.stderr.slice(-4000)}`;
}

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "harness-tool-fresh-clone-"));
  clone = path.join(dir, "repo");
  const cloned = spawnSync("git", ["clone", "--quiet", "--no-hardlinks", repoRoot, clone], { encoding: "utf8" });
  assert.equal(cloned.status, 0, cloned.stderr);
  // The working tree as it is (a session's uncommitted edits included): modified and untracked
  // files copied over, deleted ones removed.
  const list = (...flags: string[]) =>
    spawnSync("git", ["ls-files", "-z", ...flags], { cwd: repoRoot, encoding: "utf8" })
      .stdout.split("\0")
      .filter(Boolean);
  const deleted = new Set(list("--deleted"));
  for (const file of list("--modified", "--others", "--exclude-standard")) {
    if (deleted.has(file)) continue;
    mkdirSync(path.dirname(path.join(clone, file)), { recursive: true });
    copyFileSync(path.join(repoRoot, file), path.join(clone, file));
  }
  for (const file of deleted) rmSync(path.join(clone, file), { force: true });
  for (const workspace of ["runtime", "plugin", "cli"])
    assert.ok(!existsSync(path.join(clone, workspace, "dist")), `a fresh clone has no ${workspace}/dist`);
  const installed = run("npm", ["ci", "--no-audit", "--no-fund"], 600_000);
  assert.equal(installed.status, 0, shown(installed));
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("npm run demo generates the exec provider and streams its bash tool", () => {
  const demo = run("npm", ["run", "demo"]);
  assert.equal(demo.status, 0, shown(demo));
  assert.match(demo.stdout, /wrote 2 files under/);
  assert.match(demo.stdout, /^bash\s+resource\s+high\s+exclusive\s+120s\s+streaming$/m);
  assert.match(
    demo.stdout,
    /line 1 from the child process\nline 2 from the child process\nline 3 from the child process\nline 4 from the child process\nline 5 from the child process\n/,
  );
  assert.match(demo.stdout, /exit status: 3\n[\s\S]*"exit_code": 3/);
  assert.match(demo.stderr, /done, on stderr/);
  assert.match(demo.stdout, /npx harness-tool inspect examples\/exec --config \/tmp\/exec-config\.json/);
});

it("npx harness-tool bundle bundles an example, and the bundle serves through the handshake", () => {
  const outfile = path.join(dir, "exec-bundle", "provider.mjs");
  const bundled = run("npx", ["harness-tool", "bundle", "examples/exec/src/main.ts", "--outfile", outfile]);
  assert.equal(bundled.status, 0, shown(bundled));
  assert.match(bundled.stdout, /bundled \d+ modules into/);
  const schema = run("npx", ["harness-tool", "schema", outfile]);
  assert.equal(schema.status, 0, shown(schema));
  assert.match(schema.stdout, /^bash\s+resource\s+high\s+exclusive\s+120s\s+streaming$/m);
});

it("npx harness-tool inspect examples/exec serves the page for the example", async () => {
  const config = path.join(dir, "exec-config.json");
  writeFileSync(config, JSON.stringify({ allowed_roots: [clone] }));
  // Its own process group, as a shell job is: Ctrl-C at the end reaches npx and everything under it.
  const child = spawn("npx", ["harness-tool", "inspect", "examples/exec", "--config", config], {
    cwd: clone,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL within 60 s\n${out}\n${err}`)), 60_000);
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const found = /http:\/\/127\.0\.0\.1:\d+\/\S+\//.exec(out);
        if (found) {
          clearTimeout(timer);
          resolve(found[0]);
        }
      });
      child.on("exit", (code) => reject(new Error(`inspect exited ${code} before printing its URL\n${out}\n${err}`)));
    });
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const state = await fetch(new URL("api/state", url));
    assert.equal(state.status, 200, `${url}api/state`);
    assert.match(await state.text(), /"bash"/);
  } finally {
    const exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve(undefined);
      else child.on("exit", resolve);
    });
    if (child.pid !== undefined) process.kill(-child.pid, "SIGINT");
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise((resolve) => setTimeout(resolve, 10_000, false)),
    ]);
    if (!stopped && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    assert.ok(stopped, `inspect did not stop within 10 s of Ctrl-C\n${out}\n${err}`);
  }
});

it("npm run generate reproduces the committed generated code", () => {
  const generated = run("npm", ["run", "generate"]);
  assert.equal(generated.status, 0, shown(generated));
  const status = spawnSync("git", ["status", "--porcelain", "--", "generated"], { cwd: clone, encoding: "utf8" });
  assert.equal(status.stdout, "", "npm run generate changed committed files");
});

it("npm run bench -- --quick runs every suite", () => {
  const out = path.join(dir, "bench-results.md");
  const bench = run("npm", ["run", "bench", "--", "--quick", `--out=${out}`], 900_000);
  assert.equal(bench.status, 0, shown(bench));
  const report = readFileSync(out, "utf8");
  for (const suite of [
    "Code generation",
    "Type-check",
    "Start-up",
    "Invoke",
    "Memory",
    "Streams",
    "Tracing cost",
    "Inspector page",
    "Packaging",
    "Release",
    "per Node line",
    "Generated validators",
    "Cost table, one run",
  ]) {
    assert.match(report, new RegExp(suite), `the report has no ${suite} section`);
  }
  // A contender that failed fails the run; none is left as an unmeasured figure.
  assert.doesNotMatch(report, /\| (FAIL|n\/a) \|/, "a figure failed");
  assert.match(report, /schema-first defineTool/, "the type-check suite measured the schema-first corpus");
});

// Last: its packing builds each workspace's dist/, which the tests above must not see.
it("the README's first call: npm run quickstart -- ../notes, then the invoke, as written", () => {
  const block = readmeExample("first-call");
  // before() ran the block's first line, npm ci, exactly: the rest runs here as written.
  const [first, ...rest] = block.trimEnd().split("\n");
  assert.equal(first, "npm ci");
  const started = performance.now();
  const quickstart = spawnSync("bash", ["-euo", "pipefail", "-c", rest.join("\n")], {
    cwd: clone,
    env,
    encoding: "utf8",
    timeout: 600_000,
  });
  assert.equal(quickstart.status, 0, shown(quickstart));
  assert.match(quickstart.stdout, /^> npm run build {3}\(in \S+notes\)$/m);
  assert.match(quickstart.stdout, /"found": false/);
  // The new repository is beside the clone and names its tarballs relative to itself.
  const pkg = JSON.parse(readFileSync(path.join(dir, "notes/package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  assert.equal(pkg.dependencies["harness-tool"], "file:../harness-tool-packages/harness-tool-0.1.0.tgz");
  assert.equal(existsSync(path.join(dir, "notes/schema/tools.json")), false, "no baseline before a release");
  console.log(`# the first call from the clone after npm ci: ${((performance.now() - started) / 1000).toFixed(1)} s`);
});
