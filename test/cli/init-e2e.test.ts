// The first hour of a provider author, end to end: pack harness-tool, scaffold a repository with
// `harness-tool init`, install it from the tarball (and the npm registry), generate, build, run the
// new repository's own tests, pass `harness-tool check`, and serve `harness-tool inspect`. Then the built dist/provider.mjs goes
// through every interop host, the go-plugin v1.8.0 host in Go among them, as the kernel launches it.
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { describeProviderInterop } from "../interop/provider-interop.js";
import { scenario } from "../interop/host-matrix.js";
import { callContext, cancellationScenario, streamingProcessScenario, type ProcessTool } from "../interop/scenarios.js";
import { repoRoot } from "../support/buf.js";

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
  return env;
}

function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: cleanEnv() });
  assert.equal(result.status, 0, `${command} ${args.join(" ")} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

describe("harness-tool init, end to end", () => {
  let dir = "";
  let repo = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-e2e-"));
    // Pack from a copy, so the build that `npm pack` runs (prepack) never leaves a dist/ in the checkout.
    const copy = path.join(dir, "package");
    cpSync(repoRoot, copy, {
      recursive: true,
      filter: (source) => !/[/\\](node_modules|\.git|dist)$/.test(source),
    });
    symlinkSync(path.join(repoRoot, "node_modules"), path.join(copy, "node_modules"));
    run("npm", ["pack", "--pack-destination", dir], copy);
    const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
    assert.ok(tarball, "npm pack wrote no tarball");
    repo = path.join(dir, "notes");
    const cli = path.join(repoRoot, "cli/harness-tool.mjs");
    run(process.execPath, [cli, "init", repo, "--name", "notes", "--source", "github.com/acme/provider-notes", "--harness-tool", `file:${path.join(dir, tarball)}`], dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("installs, generates, builds and passes its own tests", () => {
    run("npm", ["install", "--no-audit", "--no-fund"], repo);
    run("npm", ["run", "generate"], repo);
    // The scaffold's default: protoc-gen-harness-tool alone, JavaScript with declarations.
    assert.deepEqual(readdirSync(path.join(repo, "src/gen/notes/v1")).sort(), ["notes_tool.d.ts", "notes_tool.js", "notes_tool_schemas.d.ts", "notes_tool_schemas.js"]);
    run("npm", ["run", "build"], repo);
    const out = run("npm", ["test"], repo);
    assert.match(out, /# fail 0/);
  });

  it("passes harness-tool check", () => {
    const out = run("npm", ["run", "check"], repo);
    assert.match(out, /rules: \d+ pass, 0 fail/);
  });

  it("runs a tool through invoke with nothing but the built entry", () => {
    const out = execFileSync("npx", ["harness-tool", "invoke", "dist/provider.mjs", "read_note", "--config", "dev-config.json", "--args", '{"title": "x"}'], {
      cwd: repo,
      encoding: "utf8",
      env: cleanEnv(),
    });
    assert.match(out, /"found": false/);
  });

  it("serves the inspector page from the installed package, token-only, and stops on SIGINT", async () => {
    // The installed bin itself, not npx: SIGINT must reach the inspector (npm exec does not pass it on).
    const bin = path.join(repo, "node_modules/.bin/harness-tool");
    const child = spawn(bin, ["inspect", "dist/provider.mjs", "--config", "dev-config.json"], { cwd: repo, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8");
          const found = /http:\/\/127\.0\.0\.1:\d+\/[\w-]+\//.exec(out);
          if (found) resolve(found[0]);
        });
        void exited.then((code) => reject(new Error(`inspect exited with ${code} before printing its URL:\n${out}\n${err}`)));
      });
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /inspector\.js/);
      assert.equal((await fetch(new URL("inspector.js", url))).status, 200);
      assert.equal((await fetch(new URL("/inspector.js", url))).status, 404);
      const state = (await (await fetch(new URL("api/state", url))).json()) as { tools: { name: string }[]; configState: { status: string } };
      assert.ok(state.tools.some((t) => t.name === "read_note"), JSON.stringify(state.tools));
      assert.equal(state.configState.status, "accepted");
    } finally {
      child.kill("SIGINT");
    }
    assert.equal(await exited, 0, err);
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
        const outcome = await host().invoke({ id: "read-1", toolName: "read_note", arguments: { title: "absent" }, callContext: { ...callContext("s-notes"), workingDirectory: repo } });
        assert.equal(outcome.events.length, 1);
        const [event] = outcome.events;
        assert.equal(event?.event.case === "result" ? event.event.value.payload?.found : event?.event.case, false);
      });
      scenario(id, "run_command streams its output in order, one exit_status, then the result", () => streamingProcessScenario(host(), runCommand));
      scenario(id, "run_command cancelled mid-stream: no terminal event, the child processes are gone", () => cancellationScenario(host(), runCommand, 0));
    },
  });
});
