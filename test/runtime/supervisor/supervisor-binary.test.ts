// Which supervisor program runs (runtime/supervisor/supervise-provider.ts): with
// HARNESS_TOOL_SUPERVISOR_BINARY the launched process replaces itself with the named program (same
// pid), which gets node and the same command line and not the variable; a program that cannot run
// is a start failure in the handshake's place; unset, the running platform's installed package's
// program (the test run installs it: test/support/supervisor-package.mjs); `node`, the Node
// supervisor; without the kernel's cookie, nothing of it happens.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import { pathToFileURL } from "node:url";
import { packagedSupervisor } from "../../../runtime/supervisor/supervise-provider.js";
import { kernelHandshake } from "../../../runtime/transport/plugin-environment.js";
import { providerArgv } from "../../support/provider-script.js";
import { installSupervisorPackage } from "../../support/supervisor-package.mjs";

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

const installed = installSupervisorPackage();
const platform = `${process.platform}-${process.arch}`;

it("the platform's package is found from the module that looks, when its binary is executable", () => {
  const from = pathToFileURL(path.join(dir, "app", "entry.mjs"));
  const packageDir = path.join(dir, "node_modules/@harness-tool", `supervisor-${platform}`);
  const binary = path.join(packageDir, "bin/harness-tool-supervisor");
  mkdirSync(path.dirname(binary), { recursive: true });
  assert.equal(packagedSupervisor(from), undefined, "no package");
  writeFileSync(
    path.join(packageDir, "package.json"),
    JSON.stringify({ name: `@harness-tool/supervisor-${platform}` }),
  );
  writeFileSync(binary, "#!/bin/sh\n");
  chmodSync(binary, 0o644);
  assert.equal(packagedSupervisor(from), undefined, "not executable");
  chmodSync(binary, 0o755);
  const expected = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"].includes(platform) ? binary : undefined;
  assert.equal(packagedSupervisor(from), expected);
  assert.equal(packagedSupervisor(undefined), undefined, "no module URL (a classic script)");
});

it("unset, the installed package's program supervises; `node` keeps the Node supervisor", {
  skip: installed.binary === undefined || process.platform !== "linux" ? (installed.reason ?? "reads /proc") : false,
}, () => {
  const byDefault = launch({ ...cookie });
  assert.equal(byDefault.status, 0, byDefault.stdout);
  assert.match(byDefault.stdout, new RegExp(`^supervised by ${realpathSync(installed.binary ?? "")}$`, "m"));
  const forcedNode = launch({ ...cookie, HARNESS_TOOL_SUPERVISOR_BINARY: "node" });
  assert.equal(forcedNode.status, 0, forcedNode.stdout);
  assert.match(forcedNode.stdout, new RegExp(`^supervised by ${realpathSync(process.execPath)}$`, "m"));
});
