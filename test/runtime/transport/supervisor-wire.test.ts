// The supervisor (docs/runtime.md#the-supervisor) through the real go-plugin v1.8.0 host
// (test/runtime/interop/host, the kernel's client configuration): a secret written below
// process.stderr.write — fs.writeSync(2), fs.writeSync(1) after the handshake, process._rawDebug,
// a child with stderr inherited, a secret split across two raw writes — never reaches go-plugin's
// log (the kernel's log) nor its stdio, and each such line arrives with the marker; when the host
// SIGKILLs the launched process, the grandchild of a process-backed tool is gone within a bound,
// supervised or not; a raw child_process still running at a graceful Kill is named in a warning.
// Each through two entries: the TypeScript sources (serve() decides once the code has loaded) and
// the executable `harness-tool bundle` writes (it decides before loading the bundle); and for the
// executable, that its supervisor never loads the provider's code and that `supervise: false`
// behaves as no supervisor would. The secret and orphan cases run under both supervisor programs,
// the Go one (the default) and the Node one, each checked to be the launched process's executable.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { bundleCommand } from "../../../cli/commands/bundle-command.js";
import { GoHost, type GoLogEntry } from "../interop/go-host.js";
import { goHostBinary, goSkip } from "../interop/host-matrix.js";
import { eventually, processGone } from "../interop/process-state.js";
import { repoRoot, typeScriptProvider } from "../interop/providers.js";
import { launchWithGoHost, type ProviderCommand, type ScenarioHost } from "../interop/scenario-host.js";
import { executableOf, type SupervisorProgram, supervisorPrograms } from "../../support/supervisor-under-test.js";

const fixture = "test/runtime/transport/fixtures/below-javascript-provider.ts";
const sources = typeScriptProvider("below-javascript", fixture);
const bundleDir = mkdtempSync(path.join(tmpdir(), "harness-tool-supervisor-wire-"));
/** `harness-tool bundle`'s executable of the same provider, built before the tests run. */
const bundled: ProviderCommand = {
  name: "below-javascript-bundled",
  command: process.execPath,
  args: [path.join(bundleDir, "provider.mjs")],
  cwd: repoRoot,
};
const entries = [
  ["tsx sources", sources],
  ["harness-tool bundle's executable", bundled],
] as const;

before(async () => {
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  assert.equal(
    await bundleCommand(path.join(repoRoot, fixture), {
      outfile: path.join(bundleDir, "provider.mjs"),
      external: [],
      out: silent,
    }),
    0,
  );
});
after(() => rmSync(bundleDir, { recursive: true, force: true }));
/** ASCII, so go-plugin's JSON-escaping of the log line leaves it as it is. */
const secret = "sk-live-7f3a9c2e1b5d";
const marker = "[REDACTED]";
/** The bound on the orphan: the watchdog's SIGTERM, its 1 s grace, SIGKILL, and polling slack. */
const orphanBoundMs = 3000;

/** Everything the host holds from the provider: its log (stderr lines, go-plugin's own) and stdio. */
async function hostText(go: GoHost): Promise<string> {
  const stdio = await go.stdio();
  return [JSON.stringify(await go.logEntries()), stdio.stdout, stdio.stderr].join("\n");
}

function entryText(entry: GoLogEntry): string {
  return `${entry.message} ${JSON.stringify(entry.fields)}`;
}

async function launched(
  provider: ProviderCommand,
  env?: { readonly [name: string]: string },
  program?: SupervisorProgram,
): Promise<{ go: GoHost; host: ScenarioHost }> {
  const go = new GoHost(goHostBinary());
  try {
    const host = await launchWithGoHost(go, provider, env || program ? { env: { ...program?.env, ...env } } : {});
    const executable = executableOf(host.pid);
    if (program !== undefined && executable !== undefined && env?.HARNESS_TOOL_SUPERVISOR !== "off")
      assert.match(executable, program.executable, `the launched process runs the ${program.name}`);
    const configured = await host.configure({ api_key: secret });
    assert.equal(configured.code, 0, configured.message);
    return { go, host };
  } catch (error) {
    await go.close();
    throw error;
  }
}

for (const program of supervisorPrograms)
  for (const [entryName, provider] of entries)
    describe(`${program.name}, ${entryName}: a secret written below process.stderr.write, through go-plugin v1.8.0's log`, {
      skip: goSkip || program.skip,
    }, () => {
      let go: GoHost;
      let host: ScenarioHost;
      before(async () => {
        ({ go, host } = await launched(provider, undefined, program));
      });
      after(() => go?.close());

      for (const path of ["write-sync-2", "write-sync-1", "raw-debug", "inherited-stderr-child", "split-writes"]) {
        it(`${path}: the line reaches the kernel's log with the marker, the secret nowhere`, async () => {
          const outcome = await host.invoke({ id: path, toolName: "leak", arguments: { path } });
          assert.equal(outcome.events.at(-1)?.event.case, "result");
          const line = () =>
            go.logEntries().then((entries) => entries.find((e) => entryText(e).includes(`leak via ${path}:`)));
          assert.ok(
            await eventually(async () => (await line()) !== undefined, 5000),
            `go-plugin logged no "leak via ${path}" line:\n${await hostText(go)}`,
          );
          const logged = entryText((await line()) as GoLogEntry);
          assert.ok(logged.includes(marker), `the line shows the marker: ${logged}`);
          const text = await hostText(go);
          assert.ok(
            !text.includes(secret),
            `the secret reached the host:\n${text
              .split("\n")
              .filter((l) => l.includes(secret))
              .join("\n")}`,
          );
          // Nothing but the handshake line was ever written to stdout: go-plugin's stdio reader saw nothing.
          assert.equal((await go.stdio()).stdout, "");
        });
      }
    });

/** Starts `tree` and resolves with the grandchild's pid from its first output chunk. */
async function grandchildOf(host: ScenarioHost): Promise<number> {
  const call = await host.startInvoke({
    id: "tree",
    toolName: "tree",
    arguments: { seconds: 60 },
    callContext: { workingDirectory: "/tmp" },
  });
  const events = await call.events(1);
  const chunk = events.find((e) => e.event.case === "outputChunk");
  assert.ok(chunk?.event.case === "outputChunk", `the tree tool printed nothing: ${JSON.stringify(events)}`);
  const pid = Number(/grandchild (\d+)/.exec(Buffer.from(chunk.event.value.data).toString("utf8"))?.[1]);
  assert.ok(pid > 0);
  return pid;
}

for (const program of supervisorPrograms)
  for (const [entryName, provider] of entries)
    describe(`${program.name}, ${entryName}: orphans: the host SIGKILLs the launched process`, {
      skip: goSkip || program.skip,
    }, () => {
      for (const [label, env] of [
        ["supervised (the default)", undefined],
        ["HARNESS_TOOL_SUPERVISOR=off", { HARNESS_TOOL_SUPERVISOR: "off" }],
      ] as const) {
        it(`${label}: the process-backed tool's grandchild sleep is gone within ${orphanBoundMs} ms`, async () => {
          const { go, host } = await launched(provider, env, program);
          let grandchild = 0;
          try {
            grandchild = await grandchildOf(host);
            assert.ok(!processGone(grandchild), "the sleep runs before the kill");
            const killed = Date.now();
            process.kill(host.pid, "SIGKILL");
            const gone = await eventually(() => processGone(grandchild), orphanBoundMs);
            assert.ok(
              gone,
              `the grandchild sleep ${grandchild} still runs ${Date.now() - killed} ms after the SIGKILL of ${host.pid}`,
            );
          } finally {
            if (grandchild > 0 && !processGone(grandchild)) process.kill(grandchild, "SIGKILL");
            await go.close();
          }
        });
      }

      it(`supervised: a provider whose event loop is stuck is gone within ${orphanBoundMs} ms too`, async () => {
        const { go, host } = await launched(provider, undefined, program);
        let pid = 0;
        try {
          const outcome = await host.invoke({ id: "identity", toolName: "identity", arguments: { text: "" } });
          const result = outcome.events.at(-1);
          assert.ok(result?.event.case === "result");
          pid = Number((result.event.value.payload as { pid?: number } | undefined)?.pid);
          assert.ok(pid > 0 && pid !== host.pid, `the provider (${pid}) runs under its supervisor (${host.pid})`);
          await host.startInvoke({ id: "spin", toolName: "spin", arguments: { text: "" } });
          await new Promise((resolve) => setTimeout(resolve, 200));
          process.kill(host.pid, "SIGKILL");
          assert.ok(
            await eventually(() => processGone(pid), orphanBoundMs),
            `the stuck provider ${pid} still runs after the SIGKILL of its supervisor`,
          );
        } finally {
          if (pid > 0 && !processGone(pid)) process.kill(pid, "SIGKILL");
          await go.close();
        }
      });

      it("a raw child_process still running at a graceful Kill is named in a warning", async () => {
        const { go, host } = await launched(provider, undefined, program);
        let pid = 0;
        try {
          const outcome = await host.invoke({ id: "raw", toolName: "raw_child", arguments: { seconds: 30 } });
          const result = outcome.events.at(-1);
          assert.ok(result?.event.case === "result");
          pid = Number((result.event.value.payload as { pid?: number } | undefined)?.pid);
          assert.ok(pid > 0);
          await host.kill();
          const entries = await go.logEntries();
          const warning = entries.find(
            (e) => e.message.includes(`child process ${pid} `) && e.message.includes("ctx.spawn"),
          );
          assert.ok(warning, `no warning names the raw child ${pid}:\n${entries.map(entryText).join("\n")}`);
          assert.equal(warning.level, "warn");
        } finally {
          if (pid > 0 && !processGone(pid)) process.kill(pid, "SIGKILL");
          await go.close();
        }
      });
    });

/** The pid of the process that serves (the identity tool's answer). */
async function servingPid(host: ScenarioHost): Promise<number> {
  const outcome = await host.invoke({ id: "identity", toolName: "identity", arguments: { text: "" } });
  const result = outcome.events.at(-1);
  assert.ok(result?.event.case === "result", JSON.stringify(outcome.events));
  return Number((result.event.value.payload as { pid?: number } | undefined)?.pid);
}

describe("supervision decided before the code loads, through go-plugin v1.8.0", { skip: goSkip }, () => {
  /** Launches `provider` with the fixture logging each process that loads its code; the pids that did. */
  async function loadedBy(provider: ProviderCommand): Promise<{ launched: number; serving: number; loaded: number[] }> {
    const log = path.join(bundleDir, `loaded-${provider.name}`);
    rmSync(log, { force: true });
    const { go, host } = await launched(provider, { BELOW_JAVASCRIPT_LOADED_LOG: log });
    try {
      const serving = await servingPid(host);
      const loaded = readFileSync(log, "utf8").trim().split("\n").map(Number);
      return { launched: host.pid, serving, loaded };
    } finally {
      await go.close();
    }
  }

  it("the executable's supervisor never loads the provider's code; the provider it starts does, once", async () => {
    const { launched, serving, loaded } = await loadedBy(bundled);
    assert.notEqual(serving, launched, "the provider runs under its supervisor");
    assert.deepEqual(loaded, [serving], `the supervisor ${launched} loaded the bundle too`);
  });

  it("tsx sources: serve() decides after the code loaded, so both processes load it", async () => {
    const { launched, serving, loaded } = await loadedBy(sources);
    assert.notEqual(serving, launched);
    assert.deepEqual([...loaded].sort(), [launched, serving].sort());
  });

  // The executable cannot read serve()'s option before it loads the code: under it, `supervise:
  // false` turns the supervisor into a pass-through, so the host gets what no supervisor would give
  // it (a raw fd 2 write is not filtered; a raw fd 1 write is not turned into a log line).
  for (const [entryName, provider] of entries) {
    it(`${entryName}: serve(p, { supervise: false }) reaches the host as HARNESS_TOOL_SUPERVISOR=off does`, async () => {
      const seen = async (env: { readonly [name: string]: string }) => {
        const { go, host } = await launched(provider, env);
        try {
          for (const leak of ["write-sync-2", "write-sync-1"])
            await host.invoke({ id: leak, toolName: "leak", arguments: { path: leak } });
          const line = () =>
            go.logEntries().then((entries) => entries.find((e) => entryText(e).includes("leak via write-sync-2:")));
          assert.ok(await eventually(async () => (await line()) !== undefined, 5000), await hostText(go));
          const entries = await go.logEntries();
          return {
            stderrLine: entryText((await line()) as GoLogEntry).includes(secret),
            stdoutAsLog: entries.some((e) => entryText(e).includes("leak via write-sync-1:")),
            processes: (await servingPid(host)) === host.pid ? 1 : 2,
          };
        } finally {
          await go.close();
        }
      };
      const off = await seen({ HARNESS_TOOL_SUPERVISOR: "off" });
      const optionOff = await seen({ BELOW_JAVASCRIPT_SUPERVISE: "false" });
      assert.deepEqual(off, { stderrLine: true, stdoutAsLog: false, processes: 1 });
      // Under the executable the supervisor still stands between (two processes), passing bytes through.
      assert.deepEqual(optionOff, { ...off, processes: provider === bundled ? 2 : 1 });
    });
  }
});
