// The supervisor's exit (docs/runtime.md#the-supervisor): a provider that announces its exit code
// over fd 3 is not waited for: the supervisor relays what the provider wrote before, exits with
// that code and ends the provider, whose teardown it does not wait out; channel.exit tells the
// code only after the provider's own exit listeners ran; and a start failure's stdout line (on
// which a host kills) is held until the provider ended, so its stderr, even stderr written after
// that line, reaches the host first. Under both supervisor programs: the Go one (the default) and
// the Node one.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, it } from "node:test";
import { channelVersion } from "../../../runtime/supervisor/supervisor-channel.js";
import { eventually, processGone } from "../interop/process-state.js";
import { type SupervisorProgram, supervisorPrograms } from "../../support/supervisor-under-test.js";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
const fixture = path.join(import.meta.dirname, "fixtures/exiting-provider.ts");
const tsxLoader = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href;

/** Starts the fixture (the supervisor and its provider) in `mode`, at most 20 s; `stderr()` is what it wrote there so far. */
function start(mode: string, program: SupervisorProgram) {
  const child = spawn(process.execPath, ["--conditions=harness-tool-source", "--import", tsxLoader, fixture, mode], {
    env: { ...process.env, ...program.env, HARNESS_TOOL_SUPERVISED: "" },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 20_000,
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdout.resume();
  return { child, stderr: () => stderr };
}

/** Runs the fixture to its exit. */
function supervised(mode: string, program: SupervisorProgram): Promise<{ code: number | null; stderr: string }> {
  const { child, stderr } = start(mode, program);
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stderr: stderr() })));
}

/**
 * Starts the fixture and SIGKILLs the supervisor the moment its first stdout bytes arrive (a start
 * failure's line), as go-plugin's host does: the stderr the host got before that kill.
 */
async function stderrBeforeTheKill(mode: string, program: SupervisorProgram): Promise<string> {
  const { child, stderr } = start(mode, program);
  const line = await new Promise<string>((resolve) =>
    child.stdout.once("data", (chunk: Buffer) => resolve(String(chunk))),
  );
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("close", resolve));
  assert.match(line, /^harness-tool: the provider cannot start: broken/);
  return stderr();
}

for (const program of supervisorPrograms)
  describe(`${program.name}: the supervisor's exit`, { skip: program.skip }, () => {
    it("exits with the code the provider announced, its last lines relayed, without waiting for its end", async () => {
      const { code, stderr } = await supervised("hang", program);
      assert.equal(code, 5, stderr);
      const pid = Number(/provider pid (\d+), written before the exit code/.exec(stderr)?.[1]);
      assert.ok(pid > 0, `the provider's line before the exit code was relayed: ${stderr}`);
      assert.ok(await eventually(() => processGone(pid), 2000), `provider ${pid} still runs after its supervisor left`);
    });

    it("a start failure's stderr reaches the host before its stdout line, on which the host kills", async () => {
      for (let round = 0; round < 5; round++) {
        const stderr = await stderrBeforeTheKill("start-failure", program);
        assert.ok(
          stderr.includes("end-of-stderr"),
          `round ${round}: killed on the stdout line, the host had ${stderr.length} bytes of stderr`,
        );
      }
    });

    it("a start failure's line waits for what the provider writes on stderr after it, until it ended", async () => {
      const stderr = await stderrBeforeTheKill("late-stderr", program);
      assert.ok(
        stderr.includes("late-stderr"),
        `the stdout line came first, the host had stderr ${JSON.stringify(stderr)}`,
      );
    });

    it("a start failure's line from a provider that does not end goes out after 500 ms", async () => {
      const { child, stderr } = start("held-line", program);
      let wroteAt: number | undefined;
      child.stderr.on("data", () => {
        if (wroteAt === undefined && stderr().includes("wrote the line")) wroteAt = performance.now();
      });
      await new Promise((resolve) => child.stdout.once("data", resolve));
      const heldMs = performance.now() - (wroteAt ?? Number.NaN);
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("close", resolve));
      assert.ok(
        heldMs >= 300 && heldMs < 5000,
        `the line went out ${heldMs.toFixed(0)} ms after the provider wrote it`,
      );
    });

    it("channel.exit announces the code after the provider's exit listeners ran", async () => {
      const { code, stderr } = await supervised("exit", program);
      assert.equal(code, 6, stderr);
      assert.match(stderr, /an exit listener of the provider ran/);
    });
  });

describe("the provider's exit, told to the supervisor", () => {
  it("told, the supervisor is given the CPU: the provider sleeps for its SIGKILL instead of running Node's teardown", async () => {
    // This process plays the supervisor: the marker names it (with the channel's version), fd 3 is
    // read here, nothing is killed.
    const child = spawn(
      process.execPath,
      ["--conditions=harness-tool-source", "--import", tsxLoader, fixture, "exit"],
      {
        env: {
          ...process.env,
          HARNESS_TOOL_SUPERVISED: String(process.pid),
          HARNESS_TOOL_SUPERVISOR_CHANNEL: String(channelVersion),
        },
        stdio: ["ignore", "ignore", "pipe", "pipe"],
        timeout: 20_000,
      },
    );
    child.stderr?.resume();
    let channel = "";
    const told = new Promise<number>((resolve) =>
      child.stdio[3]?.on("data", (chunk: Buffer) => {
        channel += chunk.toString("utf8");
        if (channel.includes("\n")) resolve(performance.now());
      }),
    );
    const ended = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once("exit", (code) => resolve({ code, at: performance.now() })),
    );
    const [toldAt, { code, at }] = await Promise.all([told, ended]);
    assert.deepEqual(JSON.parse(channel), { exiting: 6 });
    assert.equal(code, 6, "unkilled, it ends by itself after the wait");
    // A lower bound only: the provider's own 100 ms wait, however slow the machine.
    assert.ok(at - toldAt >= 90, `the provider ended ${(at - toldAt).toFixed(1)} ms after saying it exits`);
  });
});
