// HARNESS_TOOL_SUPERVISOR_BINARY (runtime/supervisor/supervise-provider.ts): the launched process
// replaces itself with the named supervisor program (same pid), which gets node and the same
// command line and not the variable; a program that cannot run is a start failure in the
// handshake's place; unset, or without the kernel's cookie, nothing of it happens.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import { kernelHandshake } from "../../../runtime/transport/plugin-environment.js";
import { providerArgv } from "../../support/provider-script.js";

const dir = mkdtempSync(path.join(tmpdir(), "harness-tool-supervisor-binary-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const fixture = "test/runtime/supervisor/fixtures/supervise-first.ts";
const cookie = { [kernelHandshake.cookieKey]: kernelHandshake.cookieValue };

/** A stand-in supervisor program: prints its pid, its arguments and whether the variable reached it. */
const program = path.join(dir, "supervisor.sh");
writeFileSync(
  program,
  '#!/bin/sh\necho "pid=$$"\nfor a in "$@"; do echo "arg=$a"; done\necho "variable=${HARNESS_TOOL_SUPERVISOR_BINARY-unset}"\n',
);
chmodSync(program, 0o755);

function launch(env: NodeJS.ProcessEnv): { stdout: string; status: number | null; pid: number } {
  // The shell prints the pid it then execs node in, so the program's pid can be compared with it.
  const [node, ...args] = providerArgv(fixture);
  const quoted = [node, ...args, "extra-arg"].map((a) => `'${a}'`).join(" ");
  const result = spawnSync("/bin/sh", ["-c", `echo "launched=$$"; exec ${quoted}`], {
    env: { PATH: process.env.PATH, ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  const pid = Number(/^launched=(\d+)$/m.exec(result.stdout)?.[1]);
  return { stdout: result.stdout, status: result.status, pid };
}

it("the named program takes the launched process's place with node and the same command line", () => {
  const { stdout, status, pid } = launch({ ...cookie, HARNESS_TOOL_SUPERVISOR_BINARY: program });
  assert.equal(status, 0, stdout);
  assert.match(stdout, new RegExp(`^pid=${pid}$`, "m"), "the same process (execve)");
  const args = [...stdout.matchAll(/^arg=(.*)$/gm)].map((m) => m[1]);
  assert.deepEqual(args, [...providerArgv(fixture), "extra-arg"]);
  assert.match(stdout, /^variable=unset$/m);
  assert.doesNotMatch(stdout, /serving alone/);
});

it("a program that cannot run is a start failure where go-plugin shows it", () => {
  const missing = path.join(dir, "missing");
  const { stdout, status } = launch({ ...cookie, HARNESS_TOOL_SUPERVISOR_BINARY: missing });
  assert.equal(status, 1);
  assert.match(
    stdout,
    new RegExp(
      `^harness-tool: the provider cannot start: HARNESS_TOOL_SUPERVISOR_BINARY=${missing} cannot run: .+$`,
      "m",
    ),
  );
});

it("without the kernel's cookie the variable is not read", () => {
  const { stdout, status } = launch({ HARNESS_TOOL_SUPERVISOR_BINARY: program });
  assert.equal(status, 0);
  assert.match(stdout, /serving alone/);
  assert.doesNotMatch(stdout, /^pid=/m);
});
