// The channel's version (runtime/supervisor/supervisor-channel.ts, docs/runtime.md#the-supervisor):
// both supervisor programs tell the provider the version they speak beside the marker; a
// supervisor that tells none (a program older than the runtime, named by
// HARNESS_TOOL_SUPERVISOR_BINARY) or another one ends the start with one line in the handshake's
// place, at once, instead of a provider that later waits forever for an answer never sent; and a
// tool's child does not inherit the variable.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, it } from "node:test";
import { launch } from "harness-tool/testing";
import { channelVersion, supervisorChannel } from "../../../runtime/supervisor/supervisor-channel.js";
import { kernelHandshake } from "../../../runtime/transport/plugin-environment.js";
import { sampleProvider } from "../interop/providers.js";
import { providerArgv } from "../../support/provider-script.js";
import { servingPid } from "../../support/serving-process.js";
import { executableOf, supervisorPrograms } from "../../support/supervisor-under-test.js";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const fixture = path.join(import.meta.dirname, "fixtures/channel-version-provider.ts");
const tsxLoader = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href;
const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-channel-version-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const cookie = { [kernelHandshake.cookieKey]: kernelHandshake.cookieValue };

/**
 * A stand-in supervisor program: starts the provider as its child with the marker naming it and
 * `assignments` (the channel's version, or none, as an older program), then exits with its status.
 */
function standInSupervisor(name: string, assignments: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\nHARNESS_TOOL_SUPERVISED=$$ ${assignments} "$@"\nexit $?\n`);
  chmodSync(file, 0o755);
  return file;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("a supervisor that speaks another channel version", () => {
  const platform = `${process.platform}-${process.arch}`;
  for (const [told, assignments, found] of [
    [
      "none",
      "",
      "speaks no channel version (HARNESS_TOOL_SUPERVISOR_CHANNEL unset: a supervisor program older than this runtime)",
    ],
    ["another", "HARNESS_TOOL_SUPERVISOR_CHANNEL=99", 'speaks channel version "99"'],
  ] as const)
    it(`told ${told}, the provider's start ends with one line in the handshake's place`, () => {
      const program = standInSupervisor(`supervisor-${told}.sh`, assignments);
      const [node, ...args] = providerArgv("test/runtime/transport/fixtures/sample-provider.ts");
      const result = spawnSync(node as string, args, {
        env: { PATH: process.env.PATH, ...cookie, HARNESS_TOOL_SUPERVISOR_BINARY: program },
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(result.status, 1, `${result.stdout}\n${result.stderr}`);
      const lines = result.stdout.split("\n");
      assert.deepEqual(lines.slice(1), [""], `one line: ${result.stdout}`);
      assert.match(
        lines[0] ?? "",
        new RegExp(
          `^harness-tool: the provider cannot start: its supervisor \\(.+\\) ${escaped(found)}, and this runtime needs channel version ${channelVersion}: unset HARNESS_TOOL_SUPERVISOR_BINARY, or install @harness-tool/supervisor-${platform} at the version of the harness-tool package the provider runs on$`,
        ),
      );
      assert.match(result.stderr, /"@level":"error"/, "the same reason at error level on stderr");
    });
});

it("a process the marker does not name as supervised ignores a version it inherited, and drops it", () => {
  // An older runtime under a newer supervisor reads the marker alone (unchanged: the pid) and
  // leaves the version to its tools' children: they are not supervised, whatever it says.
  const env: NodeJS.ProcessEnv = {
    HARNESS_TOOL_SUPERVISED: String(process.ppid + 1),
    HARNESS_TOOL_SUPERVISOR_CHANNEL: "0",
  };
  assert.equal(supervisorChannel(env), undefined);
  assert.deepEqual(env, {});
});

for (const program of supervisorPrograms)
  describe(`${program.name}: the channel's version`, { skip: program.skip }, () => {
    it("is told to the provider, which takes it out of its environment", async () => {
      const child = spawn(process.execPath, ["--conditions=harness-tool-source", "--import", tsxLoader, fixture], {
        env: { ...process.env, ...program.env, ...cookie, HARNESS_TOOL_SUPERVISED: "" },
        stdio: ["ignore", "ignore", "pipe"],
        timeout: 20_000,
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const code = await new Promise((resolve) => child.once("close", resolve));
      assert.equal(code, 0, stderr);
      assert.match(stderr, new RegExp(`^told channel version ${channelVersion}, left nothing$`, "m"));
    });

    it("is not inherited by a tool's child", async () => {
      const seen = path.join(dir, `seen-${program.name.replace(/\W/g, "-")}`);
      const p = await launch(sampleProvider.command, {
        args: sampleProvider.args,
        cwd: sampleProvider.cwd,
        env: program.env,
        handshakeTimeoutMs: 30_000,
      });
      try {
        const executable = executableOf(p.pid);
        if (executable !== undefined) {
          assert.match(executable, program.executable, `the launched process runs the ${program.name}`);
          assert.notEqual(servingPid(p.pid), p.pid, "the provider is the supervisor's child");
        }
        await p.configure({ root: "/tmp" });
        const command = `echo "\${HARNESS_TOOL_SUPERVISOR_CHANNEL-unset} \${HARNESS_TOOL_SUPERVISED-unset}" > '${seen}'`;
        const outcome = await p.invoke({
          id: "env",
          toolName: "bash",
          arguments: { command },
          callContext: { sessionId: "s-1", turnId: "t-1", workingDirectory: "/tmp" },
        }).done;
        assert.equal(outcome.events.at(-1)?.event.case, "result");
        assert.equal(readFileSync(seen, "utf8"), "unset unset\n");
      } finally {
        await p.kill();
      }
    });
  });
