// What the CLI says when a provider cannot be launched (exit 2, with what to do), and when it dies
// in the middle of a call (how it exited, and the last lines of its stderr).
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { processGone } from "../runtime/interop/process-state.js";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "./support/run-cli.js";

describe("launch errors", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-launch-"));
    mkdirSync(path.join(dir, "dist"));
    writeFileSync(path.join(dir, "dist/not-executable"), "#!/bin/sh\n");
    writeFileSync(path.join(dir, "no-interpreter"), "#!/nonexistent/bin/node\n");
    chmodSync(path.join(dir, "no-interpreter"), 0o755);
    mkdirSync(path.join(dir, "empty-folder"));
  });
  /** Where wrapper scripts wrote their child's pid: each child is killed after the tests. */
  const wrapperChildPidFiles: string[] = [];
  after(() => {
    for (const file of wrapperChildPidFiles) {
      const pid = existsSync(file) ? Number(readFileSync(file, "utf8").trim()) : 0;
      if (pid > 0 && !processGone(pid)) process.kill(pid, "SIGKILL");
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: [string, () => string, RegExp][] = [
    [
      "a provider under dist/ that was never built",
      () => path.join(dir, "dist/nope.mjs"),
      /dist\/nope\.mjs does not exist: build it first \(`npm run build` writes dist\/provider\.mjs/,
    ],
    [
      "a file that is not executable",
      () => path.join(dir, "dist/not-executable"),
      /not-executable is not executable: chmod \+x \S+not-executable, or launch dist\/provider\.mjs/,
    ],
    [
      "a folder without a provider entry",
      () => path.join(dir, "dist"),
      /dist is a folder without a provider entry \(looked for src\/main\.ts, [^)]*\): give the provider's executable, e.g. \S+dist\/provider\.mjs/,
    ],
    [
      "another folder without a provider entry",
      () => path.join(dir, "empty-folder"),
      /empty-folder is a folder without a provider entry \(looked for src\/main\.ts, [^)]*\): give the provider's executable, e.g. dist\/provider\.mjs/,
    ],
    [
      "an interpreter that is not installed",
      () => path.join(dir, "no-interpreter"),
      /names an interpreter that is not installed here: #!\/nonexistent\/bin\/node/,
    ],
    [
      "a bare name that is not on PATH",
      () => "no-such-provider-anywhere",
      /no executable named no-such-provider-anywhere on PATH: give the provider's path/,
    ],
  ];
  for (const [what, provider, message] of cases) {
    for (const command of ["invoke", "schema", "check"]) {
      it(`${command}: ${what}: exit 2 and what to do`, async () => {
        const argv = command === "invoke" ? [command, provider(), "tool", "--args", "{}"] : [command, provider()];
        const { code, out, err } = await cli(argv);
        assert.equal(code, 2, err);
        assert.equal(out, "");
        assert.match(err, new RegExp(`^harness-tool ${command}: cannot launch the provider: `));
        assert.match(err, message);
        assert.doesNotMatch(err, /spawn \S+ E[A-Z]+|\n\s+at /, "no raw spawn error, no stack trace");
      });
    }
  }

  it("a provider that exits before its handshake: exit 2, with its stderr", async () => {
    const provider = writeProviderScript(dir, "crash-at-start", "test/cli/fixtures/misbehaving-provider.ts", {
      MISBEHAVIOUR: "crashes-at-start",
    });
    const { code, err } = await cli(["invoke", provider, "lookup", "--args", "{}"]);
    assert.equal(code, 2, err);
    assert.match(
      err,
      /^harness-tool invoke: the provider did not start: the process exited with code 1 before serve\(\) made the handshake[^\n]*\nits stderr:\n(.*\n)*.*cannot open the database/,
    );
  });

  it("a provider that exits during a call: its exit code after its stderr shown live, exit 1", async () => {
    const provider = writeProviderScript(dir, "streaming", "test/cli/fixtures/streaming-provider.ts");
    const { code, err } = await cli(["invoke", provider, "crash", "--args", '{"code": 7}']);
    assert.equal(code, 1, err);
    assert.match(
      err,
      /^\[ERROR\] provider: giving up: the disk is full\nharness-tool invoke: the provider exited during the call: exit code 7; its stderr is above\n$/,
    );
    assert.doesNotMatch(err, /gRPC status 14/);
  });

  it("with --quiet, a provider that exits during a call: the last lines of its stderr after how it exited", async () => {
    const provider = writeProviderScript(dir, "streaming", "test/cli/fixtures/streaming-provider.ts");
    const { code, err } = await cli(["invoke", provider, "crash", "--args", '{"code": 7}', "--quiet"]);
    assert.equal(code, 1, err);
    assert.match(
      err,
      /^harness-tool invoke: the provider exited during the call: exit code 7; the last lines of its stderr:\n(.*\n)*.*giving up: the disk is full/,
    );
  });

  // Without the fix this hangs until the wrapper's child exits (600 s): the timeout turns that hang
  // into a failure; the command itself gives up at the 10 s handshake timeout.
  it("schema on a wrapper without exec that never prints the handshake: exit 2 at the handshake timeout, not when its child exits", {
    timeout: 120_000,
  }, async () => {
    const pidFile = path.join(dir, "wrapper-child.pid");
    const wrapper = path.join(dir, "wrapper-no-exec");
    // No `exec`: sh stays the launched process; its child holds stdout and stderr open.
    writeFileSync(wrapper, `#!/bin/sh\nsleep 600 &\necho $! > "${pidFile}"\nwait\n`);
    chmodSync(wrapper, 0o755);
    wrapperChildPidFiles.push(pidFile);
    const { code, out, err } = await cli(["schema", wrapper]);
    assert.equal(code, 2, err);
    assert.equal(out, "");
    assert.match(
      err,
      /^harness-tool schema: the provider did not start: no handshake line from the provider within 10000 ms/,
    );
    // It returned while the child that holds the pipes still runs: it did not wait for it.
    assert.equal(
      processGone(Number(readFileSync(pidFile, "utf8").trim())),
      false,
      "schema waited for the wrapper's child to exit",
    );
  });

  it("a wrapper whose command is not found (exit 127): a sentence, not `code 127, signal null`", async () => {
    const wrapper = path.join(dir, "wrapper-127");
    writeFileSync(wrapper, "#!/bin/sh\nno-such-command-harness-tool-test\n");
    chmodSync(wrapper, 0o755);
    for (const argv of [
      ["schema", wrapper],
      ["invoke", wrapper, "t", "--args", "{}"],
    ]) {
      const { code, err } = await cli(argv);
      assert.equal(code, 2, err);
      const [first, ...rest] = err.split("\n");
      assert.equal(
        first,
        `harness-tool ${argv[0]}: the provider did not start: command not found (exit code 127); its stderr:`,
      );
      assert.ok((first as string).length <= 100, first);
      assert.match(rest.join("\n"), /no-such-command-harness-tool-test/);
      assert.doesNotMatch(err, /signal null|code 127,/);
    }
  });
});
