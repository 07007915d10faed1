// Nothing hangs: invoke, check, schema, hook, inspect and docs end at their --timeout against a provider
// that never answers (an import that failed and left it idling before its handshake, a Configure or
// a handler that never resolves), kill the provider's whole process tree, and say what hung, what
// to do and the provider's stderr, within the terminal's width. A provider whose serving process
// is killed mid-call ends the command at once.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { durationText, parseTimeout } from "../../cli/provider/command-deadline.js";
import { processTree } from "../../cli/provider/process-tree.js";
import { writeProviderScript } from "../support/provider-script.js";
import { cli } from "./support/run-cli.js";

const fixture = "test/cli/fixtures/hanging-provider.ts";

/** Pids of live processes whose environment holds `marker` (Linux /proc; none elsewhere). */
function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`DEADLINE_TEST_MARK=${marker}`))
        found.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

describe("--timeout", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-deadline-"));
    writeFileSync(
      path.join(dir, "payload.json"),
      JSON.stringify({ sessionId: "s", profile: "default", workingDirectory: "/tmp" }),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The fixture hanging as `hang`, started by a script whose processes carry a marker of their own. */
  const provider = (hang: string) => {
    const marker = randomUUID();
    return {
      marker,
      script: writeProviderScript(dir, `${hang}-${marker.slice(0, 8)}`, fixture, {
        HANG: hang,
        DEADLINE_TEST_MARK: marker,
      }),
    };
  };

  it("reads durations as --timeout takes them, and says them back", () => {
    assert.equal(parseTimeout("30s"), 30_000);
    assert.equal(parseTimeout("500ms"), 500);
    assert.equal(parseTimeout("2m"), 120_000);
    assert.equal(parseTimeout("1m30s"), 90_000);
    assert.equal(parseTimeout("1.5"), 1500);
    assert.throws(() => parseTimeout("soon"), /--timeout "soon" is not a duration: give e\.g\. --timeout 30s/);
    assert.throws(() => parseTimeout("0s"), /must be more than 0/);
    assert.equal(durationText(4000), "4s");
    assert.equal(durationText(90_000), "1m30s");
    assert.equal(durationText(120_000), "2m");
    assert.equal(durationText(1500), "1.5s");
  });

  it("lists a process tree: this process and a child of it", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn("sleep", ["30"]);
    try {
      const tree = processTree(process.pid);
      assert.equal(tree[0], process.pid);
      assert.ok(tree.includes(child.pid as number), `${child.pid} not in ${tree.join(",")}`);
    } finally {
      child.kill("SIGKILL");
    }
  });

  const cases: { command: string; hang: string; timeout: string; stage: RegExp; stderr: RegExp }[] = [
    {
      command: "invoke",
      hang: "import-fails",
      timeout: "3s",
      stage: /the launch/,
      stderr: /__filename is not defined in ES module scope/,
    },
    { command: "invoke", hang: "configure", timeout: "10s", stage: /Configure/, stderr: /it wrote nothing to stderr/ },
    { command: "invoke", hang: "handler", timeout: "10s", stage: /the call to wait/, stderr: /its stderr is above/ },
    { command: "check", hang: "import-fails", timeout: "3s", stage: /the launch/, stderr: /__filename is not defined/ },
    {
      command: "check",
      hang: "handler",
      timeout: "20s",
      stage: /the sample call to wait/,
      stderr: /\[ERROR\] provider: waiting \(handler\)/,
    },
    {
      command: "schema",
      hang: "import-fails",
      timeout: "3s",
      stage: /the launch/,
      stderr: /__filename is not defined/,
    },
    { command: "hook", hang: "configure", timeout: "1", stage: /Configure/, stderr: /it wrote nothing to stderr/ },
    {
      command: "inspect",
      hang: "import-fails",
      timeout: "3s",
      stage: /the launch/,
      stderr: /__filename is not defined/,
    },
    { command: "inspect", hang: "configure", timeout: "10s", stage: /Configure/, stderr: /it wrote nothing to stderr/ },
    { command: "docs", hang: "configure", timeout: "10s", stage: /Configure/, stderr: /it wrote nothing to stderr/ },
  ];
  for (const { command, hang, timeout, stage, stderr } of cases) {
    it(`${command}: a provider that hangs (${hang}) ends at the deadline, its tree killed, with what to do and its stderr`, {
      timeout: 90_000,
    }, async (t) => {
      const { marker, script } = provider(hang);
      // A tree the command failed to kill fails the test below, and is killed here, or it would hold the runner open.
      t.after(() => {
        for (const pid of processesMarked(marker)) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Gone meanwhile.
          }
        }
      });
      const argv = {
        invoke: ["invoke", script, "wait", "--args", "{}", "--timeout", timeout],
        check: ["check", script, "--timeout", timeout],
        schema: ["schema", script, "--timeout", timeout],
        // hook's --timeout is the call's (ms); the command adds 30 s for the launch and Configure.
        hook: [
          "hook",
          script,
          "session-start",
          "--mode",
          "observe",
          "--payload",
          path.join(dir, "payload.json"),
          "--timeout",
          "1",
        ],
        inspect: ["inspect", script, "--timeout", timeout],
        docs: ["docs", script, "--out-dir", path.join(dir, "docs-out"), "--timeout", timeout],
      }[command] as string[];
      const { code, out, err } = await cli(argv, 80);
      assert.equal(code, 1, err);
      assert.equal(command === "check" ? out : "", "", "no report for a run the deadline ended");
      const lines = err.split("\n").filter((l) => !l.startsWith("harness-tool inspect: launching"));
      const headline = lines.find((l) => l.startsWith(`harness-tool ${command}: `)) ?? "";
      assert.match(headline, stage, err);
      assert.match(headline, /did not end within|timed out|no answer/, err);
      assert.match(
        headline,
        command === "hook" ? /--timeout 2\b/ : /--timeout/,
        "says what to do (hook's --timeout in ms)",
      );
      assert.match(err, stderr);
      assert.doesNotMatch(
        err,
        /the provider was ended by SIGKILL/,
        "the deadline's kill is not reported as the provider's own exit",
      );
      for (const line of lines) assert.ok(line.length <= 80, `wider than 80 columns: ${line}`);
      assert.deepEqual(processesMarked(marker), [], "a process of the provider's tree outlived the command");
    });
  }

  it("invoke: a provider whose serving process is killed mid-call ends the command at once: how it died, exit 1", {
    timeout: 90_000,
  }, async () => {
    const { marker, script } = provider("kill-serving");
    const { code, err } = await cli(["invoke", script, "wait", "--args", "{}", "--timeout", "60s"], 100);
    assert.equal(code, 1, err);
    assert.match(
      err,
      /^\[ERROR\] provider: waiting \(kill-serving\)\nharness-tool invoke: the provider exited during the call: killed by SIGKILL/,
    );
    assert.doesNotMatch(err, /timed out|did not end within/);
    assert.deepEqual(processesMarked(marker), []);
  });

  it("a --timeout that is not a duration is a usage error", async () => {
    const { code, err } = await cli(["schema", provider("none").script, "--timeout", "forever"]);
    assert.equal(code, 2);
    assert.match(err, /^harness-tool schema: --timeout "forever" is not a duration/);
  });
});
