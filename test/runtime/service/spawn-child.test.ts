// ProcessToolContext.spawn: no shell, output in order, one exit_status after all output, and the
// whole process group killed (SIGTERM, then SIGKILL) on cancellation, timeout and shutdown.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { dataTool, exec, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink, sleep, terminalError } from "./support/recording-sink.js";
import { defineTool } from "../../../runtime/index.js";
import { textSchema } from "./support/sample-tools.js";
import { alive } from "../../support/hanging-tool.js";
import { watchChildGroups } from "../../../runtime/service/process/spawn-child.js";

const node = process.execPath;

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await sleep(10);
  }
  assert.fail(`gave up waiting: ${what}`);
}

function text(events: ReturnType<typeof recordingSink>["events"], stream: number): string {
  return Buffer.concat(
    events
      .filter((e) => e.event.case === "outputChunk" && e.event.value.stream === stream)
      .map((e) => Buffer.from((e.event.value as { data: Uint8Array }).data)),
  ).toString();
}

const shortExec = defineTool<{ text: string }, { text: string }>()({
  name: "short_exec",
  kind: "resource",
  risk: "high",
  description: "Runs with a short timeout.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: false,
  processBacked: true,
  defaultTimeoutMs: 50,
});

describe("spawn", () => {
  it("streams stdout and stderr, then one exit_status, then the result; a non-zero exit is ordinary content", async () => {
    const service = createToolService(
      providerWith(exec, async (_i, ctx) => {
        const exit = await ctx.spawn(node, [
          "-e",
          "process.stdout.write('out1 '); process.stderr.write('err1'); process.stdout.write('out2'); process.exitCode = 3",
        ]);
        return { text: `exit ${exit.exitCode}` };
      }),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
    assert.deepEqual(rec.cases().slice(-2), ["exitStatus", "result"]);
    assert.equal(rec.cases().filter((c) => c === "exitStatus").length, 1);
    assert.equal(text(rec.events, 1), "out1 out2");
    assert.equal(text(rec.events, 2), "err1");
    const exit = rec.events.find((e) => e.event.case === "exitStatus")!.event;
    assert.equal(exit.case === "exitStatus" && exit.value.exitCode, 3);
    const t = onlyTerminal(rec);
    assert.deepEqual(t.case === "result" && t.value.payload, { text: "exit 3" });
  });

  it("a child inherits the provider's environment without the go-plugin host's variables", async () => {
    const hostVariables = {
      PLUGGABLEHARNESS_AGENT_PLUGIN: "cookie",
      PLUGIN_PROTOCOL_VERSIONS: "1",
      PLUGIN_MIN_PORT: "10000",
      PLUGIN_CLIENT_CERT: "pem",
      // The supervisor's marker and channel version (serve() removes them too).
      HARNESS_TOOL_SUPERVISED: "1",
      HARNESS_TOOL_SUPERVISOR_CHANNEL: "1",
    };
    const saved = Object.fromEntries(Object.keys(hostVariables).map((k) => [k, process.env[k]]));
    Object.assign(process.env, hostVariables, { HARNESS_TOOL_TEST_KEPT: "kept" });
    try {
      const service = createToolService(
        providerWith(exec, async (_i, ctx) => {
          await ctx.spawn(node, [
            "-e",
            "process.stdout.write(JSON.stringify(Object.keys(process.env).filter((k) => /^(PLUGGABLEHARNESS_AGENT_PLUGIN|PLUGIN_.*|HARNESS_TOOL_SUPERVIS.*|HARNESS_TOOL_TEST_KEPT)$/.test(k)).sort()))",
          ]);
          return { text: "" };
        }),
        { stderr: () => {} },
      );
      const rec = recordingSink();
      await service.invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
      assert.deepEqual(JSON.parse(text(rec.events, 1)), ["HARNESS_TOOL_TEST_KEPT"]);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      delete process.env["HARNESS_TOOL_TEST_KEPT"];
    }
  });

  it("uses no shell: shell syntax reaches the program as a literal argument", async () => {
    const service = createToolService(
      providerWith(exec, async (_i, ctx) => {
        await ctx.spawn(node, ["-e", "process.stdout.write(process.argv[1])", "$(echo hi) && ls"]);
        return { text: "" };
      }),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
    assert.equal(text(rec.events, 1), "$(echo hi) && ls");
  });

  it("a command that does not exist is not_found", async () => {
    const service = createToolService(
      providerWith(exec, async (_i, ctx) => {
        await ctx.spawn("definitely-not-a-command-xyz", []);
        return { text: "" };
      }),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.NOT_FOUND);
  });

  it("on timeout the child is killed and the call ends with timeout", async () => {
    const service = createToolService(
      providerWith(shortExec, async (_i, ctx) => {
        await ctx.spawn(node, ["-e", "setInterval(() => {}, 1000)"]);
        return { text: "" };
      }),
      { stderr: () => {}, killGraceMs: 50 },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("short_exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.TIMEOUT);
    const exit = rec.events.find((e) => e.event.case === "exitStatus")?.event;
    assert.equal(exit?.case === "exitStatus" && exit.value.signal, "SIGTERM");
  });

  it("on cancellation a child ignoring SIGTERM and its grandchild are SIGKILLed; no terminal event follows", async () => {
    let pids: number[] = [];
    const script = [
      "process.on('SIGTERM', () => {});",
      "const { spawn } = require('child_process');",
      "const g = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)\"], { stdio: 'ignore' });",
      "process.stdout.write(JSON.stringify([process.pid, g.pid]) + '\\n');",
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const service = createToolService(
      providerWith(exec, async (_i, ctx) => {
        await ctx.spawn(node, ["-e", script]);
        return { text: "" };
      }),
      { stderr: () => {}, killGraceMs: 50, settleGraceMs: 5_000 },
    );
    const rec = recordingSink((event) => {
      if (event.event.case === "outputChunk") {
        pids = JSON.parse(Buffer.from(event.event.value.data).toString()) as number[];
        queueMicrotask(() => rec.cancel());
      }
    });
    await service.invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
    assert.equal(pids.length, 2);
    await waitUntil(() => pids.every((pid) => !alive(pid)), "child and grandchild to die");
    assert.deepEqual(rec.cases(), ["outputChunk", "exitStatus"]);
    const exit = rec.events[1]!.event;
    assert.equal(exit.case === "exitStatus" && exit.value.signal, "SIGKILL");
  });

  it("shutdown kills running children and ends their calls with a terminal cancelled", async () => {
    let pid = 0;
    const service = createToolService(
      providerWith(exec, async (_i, ctx) => {
        await ctx.spawn(node, ["-e", "process.stdout.write(String(process.pid)); setInterval(() => {}, 1000)"]);
        return { text: "" };
      }),
      { stderr: () => {}, killGraceMs: 50 },
    );
    const rec = recordingSink((event) => {
      if (event.event.case === "outputChunk") pid = Number(Buffer.from(event.event.value.data).toString());
    });
    assert.equal(service.busy(), false, "nothing for a shutdown to wait for before the call");
    const done = service.invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
    await waitUntil(() => pid > 0, "the child to start");
    assert.equal(service.busy(), true, "a call and its child in flight: a shutdown waits for them");
    await service.shutdown(1_000);
    await done;
    assert.equal(alive(pid), false);
    assert.equal(service.busy(), false, "nothing left after the shutdown");
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.CANCELLED);
    // After shutdown, new calls are refused.
    const later = recordingSink();
    await service.invoke(invokeRequest("exec", { text: "a" }), later.sink);
    assert.equal(terminalError(later).category, ToolErrorCategory.CANCELLED);
    void dataTool;
  });

  it("a child that outlives its call keeps the service busy until it is gone", async () => {
    const service = createToolService(
      providerWith(exec, async (_i, ctx) => {
        // Not awaited: the call ends while its child runs on.
        void ctx.spawn(node, ["-e", "setInterval(() => {}, 1000)"]);
        await waitUntil(() => service.serviceScope.rt.children.size > 0, "the child to start");
        return { text: "" };
      }),
      { stderr: () => {}, killGraceMs: 50 },
    );
    await service.invoke(
      invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }),
      recordingSink().sink,
    );
    assert.equal(service.inFlight(), 0, "the call ended");
    assert.equal(service.busy(), true, "its child still runs: a shutdown would wait for its kill");
    await service.shutdown(1_000);
    assert.equal(service.busy(), false);
  });

  it("a child's working directory goes through resolvePath", async () => {
    const service = createToolService(
      providerWith(exec, async (_i, ctx) => {
        await ctx.spawn(node, ["-e", "process.stdout.write(process.cwd())"], { cwd: "/" });
        return { text: "" };
      }),
      { stderr: () => {} },
    );
    const rec = recordingSink();
    await service.invoke(invokeRequest("exec", { text: "a" }, { workingDirectory: process.cwd() }), rec.sink);
    assert.equal(text(rec.events, 1), "/");
  });

  it("passes on none of a child's output, and ends no call, before its group's watch is confirmed", async () => {
    // The supervisor answers a group once its watchdog has it; a host that kills the provider on a
    // child's first output must find the group watched.
    const order: string[] = [];
    watchChildGroups({
      watch: (pgid) => {
        order.push("watch");
        return () => order.push(`confirmed ${pgid}`);
      },
      forget: () => {},
    });
    try {
      const service = createToolService(
        providerWith(exec, async (input, ctx) => {
          const exit = await ctx.spawn(node, ["-e", input.text]);
          return { text: `exit ${exit.exitCode}` };
        }),
        { stderr: () => {} },
      );
      const speaks = recordingSink((event) => {
        if (event.event.case === "outputChunk") order.push("output");
      });
      await service.invoke(
        invokeRequest(
          "exec",
          { text: "process.stdout.write(String(process.pid))" },
          { workingDirectory: process.cwd() },
        ),
        speaks.sink,
      );
      const pid = Number(text(speaks.events, 1));
      assert.deepEqual(order.slice(0, 3), ["watch", `confirmed ${pid}`, "output"]);
      assert.equal(order.filter((o) => o.startsWith("confirmed")).length, 1, "confirmed once");
      order.length = 0;
      const silent = recordingSink();
      await service.invoke(invokeRequest("exec", { text: "" }, { workingDirectory: process.cwd() }), silent.sink);
      assert.deepEqual(
        order.map((o) => o.split(" ")[0]),
        ["watch", "confirmed"],
      );
      assert.equal(onlyTerminal(silent).case, "result");
    } finally {
      watchChildGroups(undefined);
    }
  });
});
