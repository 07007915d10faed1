/**
 * Interop: the same scenarios through every host of the matrix (harness-tool/testing's launch(),
 * and the real go-plugin v1.8.0 host in Go with the kernel's client configuration and with
 * AutoMTLS), against the sample provider and the examples, each launched exactly as the kernel
 * launches plugins.
 *
 * The Go hosts skip only where `go` is missing (a developer machine); .ci/run sets
 * HARNESS_TOOL_REQUIRE_INTEROP=1, so in CI they always run.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe } from "node:test";
import { ToolErrorCategory, ToolKind, RiskClass } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { toolErrorCategoryNames } from "harness-tool/errors";
import { GoHost } from "./go-host.js";
import {
  goHostBinary,
  goSkip,
  hostIds,
  hostLabels,
  scenario,
  skipFor,
  start,
  type Harness,
  type HostId,
} from "./host-matrix.js";
import { eventually, processGone } from "./process-state.js";
import { describeProviderInterop } from "./provider-interop.js";
import {
  brokenProvider,
  exampleProviders,
  sampleProvider,
  throwsAtStartProvider,
  withEnvironment,
} from "./providers.js";
import { supervisorPrograms } from "../../support/supervisor-under-test.js";
import { kernelReplies, launchWithGoHost, type ProviderCommand, type ScenarioHost } from "./scenario-host.js";
import {
  callContext,
  cancellationScenario,
  goneWithinMs,
  handshakeScenario,
  hostSigkilledScenario,
  killDuringCallScenario,
  killScenario,
  logHygieneScenario,
  printedPids,
  streamingProcessScenario,
  streamStdioScenario,
  terminal,
  type ProcessTool,
} from "./scenarios.js";

const sampleBash: ProcessTool = {
  tool: "bash",
  args: (command) => ({ command }),
  exitCode: (payload) => (payload as { exitCode?: unknown }).exitCode,
};
const execBash: ProcessTool = {
  tool: "bash",
  args: (command) => ({ command }),
  exitCode: (payload) => (payload as { exit_code?: unknown }).exit_code,
};
const examples = new Map(exampleProviders().map((p) => [p.name, p]));
const errorCategory = (host: ScenarioHost, outcome: Awaited<ReturnType<ScenarioHost["invoke"]>>) =>
  outcome.events[0]?.event.case === "error"
    ? outcome.events[0].event.value.category
    : `${host.hostName}: ${outcome.events[0]?.event.case}`;

for (const id of hostIds) {
  describe(`${hostLabels[id]} × sample provider`, { skip: skipFor(id) }, () => {
    let h: Harness;
    let host: ScenarioHost;
    before(async () => {
      h = await start(id, sampleProvider);
      host = h.host;
    });
    after(() => h?.close());

    scenario(id, "handshake: core 1, app version 1, a unix socket, gRPC; Ping answers", async () => {
      await handshakeScenario(host);
      assert.equal(host.autoMTLS, id === "go-automtls");
    });

    if (id !== "typescript") {
      scenario(id, "StreamStdio: go-plugin v1.8.0 opens it and reads it without a warning", () =>
        streamStdioScenario(h.go as GoHost),
      );
    }

    scenario(id, "GetSchema decodes to the declared tools; Describe names the provider", async () => {
      const schema = await host.getSchema();
      assert.deepEqual(schema.tools.map((t) => t.name).sort(), [
        "bash",
        "callbacks",
        "echo",
        "fail",
        "levels",
        "note",
        "slow",
      ]);
      const bash = schema.tools.find((t) => t.name === "bash");
      assert.equal(bash?.kind, ToolKind.RESOURCE);
      assert.equal(bash?.risk, RiskClass.HIGH);
      assert.equal(bash?.streaming, true);
      assert.equal(schema.configSchema?.attributes.find((a) => a.name === "root")?.required, true);
      const described = await host.describe();
      assert.equal(described.producer?.name, "sample");
      assert.equal(described.producer?.protocolVersion, 1);
    });

    scenario(
      id,
      "Configure: a missing required field is INVALID_ARGUMENT with a ToolError in the status details; then accepted",
      async () => {
        const rejected = await host.configure({});
        assert.equal(rejected.code, 3);
        assert.equal(rejected.toolError?.category, ToolErrorCategory.INVALID_ARGUMENTS);
        assert.match(rejected.toolError?.message ?? "", /root/);
        assert.equal((await host.configure({ root: "/tmp" })).code, 0);
      },
    );

    scenario(id, "a non-streaming Invoke: exactly one event, the result", async () => {
      const outcome = await host.invoke({
        id: "echo-1",
        toolName: "echo",
        arguments: { text: "hello" },
        callContext: callContext("s-echo"),
      });
      assert.equal(outcome.code, 0);
      assert.equal(outcome.events.length, 1);
      const [event] = outcome.events;
      assert.equal(event?.event.case, "result");
      assert.deepEqual(event?.event.case === "result" ? event.event.value.payload : undefined, { text: "hello" });
    });

    scenario(
      id,
      "a streaming, process-backed Invoke: chunks in order, progress, one exit_status, then the result",
      async () => {
        await streamingProcessScenario(host, sampleBash);
        const outcome = await host.invoke({
          id: "bash-2",
          toolName: "bash",
          arguments: { command: "true" },
          callContext: callContext("s-bash"),
        });
        assert.ok(
          outcome.events.some((e) => e.event.case === "progress"),
          "progress events arrive",
        );
      },
    );

    scenario(id, "an error of each category a provider can emit ends the stream as one terminal error", async () => {
      for (const [index, name] of toolErrorCategoryNames.entries()) {
        const outcome = await host.invoke({
          id: `fail-${name}`,
          toolName: "fail",
          arguments: { category: name },
          callContext: callContext("s-fail"),
        });
        assert.equal(outcome.code, 0, name);
        assert.equal(outcome.events.length, 1, name);
        // Wire order: INVALID_ARGUMENTS = 1 ... CANCELLED = 7, then PROCESS_CRASHED (kernel only), UNKNOWN = 9.
        const expected = name === "unknown" ? ToolErrorCategory.UNKNOWN : index + 1;
        assert.equal(errorCategory(host, outcome), expected, name);
      }
      // An unexpected exception is classified, never an UNKNOWN status: unknown, the raw error in details.
      const crash = await host.invoke({
        id: "fail-crash",
        toolName: "fail",
        arguments: { category: "crash" },
        callContext: callContext("s-fail"),
      });
      const event = crash.events[0];
      assert.equal(errorCategory(host, crash), ToolErrorCategory.UNKNOWN);
      assert.ok(
        event?.event.case === "error" && event.event.value.details !== undefined,
        "details carry the raw error",
      );
      // Arguments failing input_schema: invalid_arguments.
      const invalid = await host.invoke({
        id: "echo-bad",
        toolName: "echo",
        arguments: { text: 42 },
        callContext: callContext("s-fail"),
      });
      assert.equal(errorCategory(host, invalid), ToolErrorCategory.INVALID_ARGUMENTS);
    });

    scenario(id, "cancellation mid-stream: no terminal event, the child processes are gone", async () => {
      // The sample's bash reports progress first.
      await cancellationScenario(host, sampleBash, 1);
    });

    scenario(id, "the tool's own timeout: one terminal timeout error, and the provider serves on", async () => {
      const outcome = await host.invoke({
        id: "slow-1",
        toolName: "slow",
        arguments: { ms: 30_000 },
        callContext: callContext("s-slow"),
      });
      assert.equal(outcome.code, 0);
      assert.equal(terminal(outcome.events).length, 1);
      assert.equal(errorCategory(host, outcome), ToolErrorCategory.TIMEOUT);
      const quick = await host.invoke({
        id: "slow-2",
        toolName: "slow",
        arguments: { ms: 1 },
        callContext: callContext("s-slow"),
      });
      assert.equal(quick.events[0]?.event.case, "result");
    });

    if (id !== "typescript") {
      scenario(id, "the kernel's deadline: DEADLINE_EXCEEDED on the host, the call's processes are gone", async () => {
        const outcome = await host.invoke(
          {
            id: "bash-deadline",
            toolName: "bash",
            arguments: { command: 'sleep 30 & echo "$$ $!"; wait' },
            callContext: callContext("s-deadline"),
          },
          { deadlineMs: 1500 },
        );
        assert.equal(outcome.code, 4, "grpc-go reports DEADLINE_EXCEEDED");
        assert.equal(terminal(outcome.events).length, 0, "nothing claims success or failure after the deadline");
        for (const pid of printedPids(outcome.events))
          assert.ok(await eventually(() => processGone(pid), goneWithinMs), `process ${pid} is gone`);
        await host.ping();
      });
    }

    scenario(
      id,
      "Log arrives on broker ID 1 with the call's session id; console.warn keeps its level on the host",
      async () => {
        const outcome = await host.invoke({
          id: "note-1",
          toolName: "note",
          arguments: { message: "noted via the kernel" },
          callContext: callContext("session-42"),
        });
        assert.equal(outcome.events[0]?.event.case, "result");
        const log = (await host.callbackCalls()).log.find((l) => l.entry?.message === "noted via the kernel");
        assert.equal(log?.sessionId, "session-42");
        const hostLogs = await host.hostLogs();
        const warn = hostLogs.find((l) => l.message.includes("note tool called"));
        assert.equal(warn?.level, "warn", JSON.stringify(hostLogs.slice(-5)));
      },
    );

    scenario(
      id,
      "every callback on broker ID 1: Log, Emit, RunSession, CountTokens; the kernel's answers reach the handler",
      async () => {
        const outcome = await host.invoke({
          id: "cb-1",
          toolName: "callbacks",
          arguments: { topic: "quarterly report" },
          callContext: callContext("session-cb"),
        });
        const result = outcome.events[0];
        assert.equal(result?.event.case, "result", JSON.stringify(outcome.events));
        assert.deepEqual(result?.event.case === "result" ? result.event.value.payload : undefined, {
          eventId: kernelReplies.emit.id,
          sequence: Number(kernelReplies.emit.sequence),
          subSession: kernelReplies.runSession.sessionId,
          tokens: Number(kernelReplies.countTokens.count),
          exact: kernelReplies.countTokens.exact,
        });
        const calls = await host.callbackCalls();
        assert.equal(
          calls.log.find((l) => l.entry?.message === "callbacks about quarterly report")?.sessionId,
          "session-cb",
        );
        const emit = calls.emit.at(-1);
        assert.equal(emit?.sessionId, "session-cb");
        assert.equal(new TextDecoder().decode(emit?.payload), "quarterly report");
        assert.equal(calls.runSession.at(-1)?.prompt, "look into quarterly report");
        const counted = calls.countTokens.at(-1)?.content[0]?.block;
        assert.equal(counted?.case === "text" ? counted.value.text : undefined, "quarterly report");
      },
    );

    scenario(
      id,
      "log levels as the host shows them: a debug line at debug, info at info, a runtime error at error",
      async () => {
        const outcome = await host.invoke({
          id: "levels-1",
          toolName: "levels",
          arguments: { text: "marker-7" },
          callContext: callContext("s-levels"),
        });
        assert.equal(outcome.events[0]?.event.case, "result");
        // The stray exception is reported after the call ended: poll the host's log for a while.
        const find = async (match: RegExp) =>
          (await host.hostLogs()).find((l) => match.test(l.message) || match.test(JSON.stringify(l.fields)));
        const line = async (match: RegExp) => {
          await eventually(async () => (await find(match)) !== undefined, 2000);
          return find(match);
        };
        assert.equal((await line(/^debug: marker-7$/))?.level, "debug");
        assert.equal((await line(/^info: marker-7$/))?.level, "info");
        const stray = await line(/stray failure after marker-7/);
        assert.equal(stray?.level, "error", JSON.stringify(stray));
        await logHygieneScenario(host);
      },
    );

    scenario(
      id,
      "Kill(): controller Shutdown, gone well under the 2 s SIGKILL path; no socket file, no process left",
      () => killScenario(host, h.go),
    );
  });
}

// Under both supervisor programs: the Go one (the default) and the Node one.
for (const id of hostIds)
  for (const program of supervisorPrograms) {
    describe(`${hostLabels[id]}, ${program.name}: Kill() during a running process-backed call`, {
      skip: skipFor(id) || program.skip,
    }, () => {
      scenario(id, "sample provider: the call's children are gone, no orphan, no socket", async () => {
        const h = await start(id, sampleProvider, program.env);
        try {
          assert.equal((await h.host.configure({ root: "/tmp" })).code, 0);
          await killDuringCallScenario(h.host, sampleBash, 1, h.go);
        } finally {
          await h.close();
        }
      });
      const exec = examples.get("examples/exec");
      if (exec) {
        scenario(id, "examples/exec: the call's children are gone, no orphan, no socket", async () => {
          const h = await start(id, exec, program.env);
          try {
            assert.equal((await h.host.configure({ allowed_roots: ["/tmp"] })).code, 0);
            await killDuringCallScenario(h.host, execBash, 0, h.go);
          } finally {
            await h.close();
          }
        });
      }
    });
  }

/** Providers that cannot start: what the host's launch error must say. */
const startFailures: readonly { readonly provider: ProviderCommand; readonly cause: RegExp }[] = [
  { provider: throwsAtStartProvider, cause: /credentials\.json is missing/ },
  { provider: brokenProvider, cause: /tool name "same" is declared more than once/ },
  // The provider refuses a protocol version it does not speak, and an AutoMTLS certificate it cannot read.
  {
    provider: withEnvironment(sampleProvider, "offered-protocol-2", { PLUGIN_PROTOCOL_VERSIONS: "2" }),
    cause: /incompatible plugin protocol versions: the host offers 2, this provider speaks 1/,
  },
  {
    provider: withEnvironment(sampleProvider, "garbled-client-cert", { PLUGIN_CLIENT_CERT: "not a certificate" }),
    cause: /PLUGIN_CLIENT_CERT \(AutoMTLS\) holds no PEM certificate/,
  },
];

for (const id of hostIds) {
  describe(`${hostLabels[id]}: a provider that fails at start`, { skip: skipFor(id) }, () => {
    for (const { provider, cause } of startFailures) {
      scenario(id, `${provider.name}: the host's launch error names the cause, logged at error level`, async () => {
        if (id === "typescript") {
          await assert.rejects(start(id, provider), (error: Error) => cause.test(error.message));
          return;
        }
        const go = new GoHost(goHostBinary());
        try {
          await assert.rejects(launchWithGoHost(go, provider, { autoMTLS: id === "go-automtls" }), (error: Error) => {
            assert.match(error.message, cause);
            return true;
          });
          // go-plugin reads stdout and stderr concurrently: the launch error may come back before
          // the stderr line is logged, so wait for the host to process the provider's exit (up to
          // 10 s: a loaded 2-core CI machine once took longer than 3 s).
          const causeLines = async () =>
            (await go.logEntries()).filter((e) => e.module !== "host" && cause.test(e.message));
          await eventually(async () => (await causeLines()).length > 0, 10_000);
          const logged = await causeLines();
          assert.deepEqual(
            logged.map((e) => e.level),
            ["error"],
            "the cause is logged once, at error level",
          );
        } finally {
          await go.close();
        }
      });
    }
  });
}

for (const id of hostIds.filter((h) => h !== "typescript"))
  for (const program of supervisorPrograms) {
    describe(`${hostLabels[id]} SIGKILLed × sample provider, ${program.name}`, {
      skip: skipFor(id) || program.skip,
    }, () => {
      scenario(
        id,
        "the broker stream and the connection break: the provider exits by itself and removes its socket",
        async () => {
          const h = await start(id, sampleProvider, program.env);
          try {
            await hostSigkilledScenario(h.go as GoHost, h.host);
          } finally {
            await h.close();
          }
        },
      );
    });
  }

describe(`${hostLabels["go-automtls"]}: only the host's certificate gets in`, { skip: goSkip }, () => {
  for (const id of ["go", "go-automtls"] as const) {
    scenario(
      id,
      `${id === "go" ? "without AutoMTLS a plaintext client is served" : "a plaintext client, a TLS client without a certificate and one with a foreign certificate are refused"}`,
      async () => {
        const h = await start(id, sampleProvider);
        try {
          const go = h.go as GoHost;
          if (id === "go") {
            assert.deepEqual(await go.probe("plaintext"), { refused: false, message: "" });
            return;
          }
          for (const credentials of ["plaintext", "tls-without-client-cert", "tls-foreign-client-cert"] as const) {
            const probe = await go.probe(credentials);
            assert.ok(probe.refused, `${credentials} was served`);
          }
          await h.host.ping();
        } finally {
          await h.close();
        }
      },
    );
  }
});

/** Scenarios of each example, by name; an example without an entry here gets the generic ones. */
const exampleScenarios: { readonly [name: string]: (id: HostId, host: () => ScenarioHost) => void } = {
  "examples/exec": (id, host) => {
    scenario(id, "Configure with an allowed root", async () => {
      assert.equal((await host().configure({ allowed_roots: ["/tmp"] })).code, 0);
    });
    scenario(id, "bash streams its output in order, one exit_status, then the result", () =>
      streamingProcessScenario(host(), execBash),
    );
    scenario(id, "bash cancelled mid-stream: no terminal event, the child processes are gone", () =>
      cancellationScenario(host(), execBash, 0),
    );
  },
  "examples/filesystem": (id, host) => {
    const root = mkdtempSync(path.join(os.tmpdir(), "harness-tool-interop-fs-"));
    after(() => rmSync(root, { recursive: true, force: true }));
    const at = (sessionId: string) => ({ ...callContext(sessionId), workingDirectory: root });
    scenario(id, "Configure with an allowed root", async () => {
      assert.equal((await host().configure({ allowed_roots: [root] })).code, 0);
    });
    scenario(id, "read_file: one result event, no lead-up", async () => {
      writeFileSync(path.join(root, "a.txt"), "one\ntwo\n");
      const outcome = await host().invoke({
        id: "read-1",
        toolName: "read_file",
        arguments: { path: "a.txt" },
        callContext: at("s-fs"),
      });
      assert.equal(outcome.events.length, 1);
      const [event] = outcome.events;
      assert.equal(event?.event.case, "result");
      assert.equal(event?.event.case === "result" ? event.event.value.payload?.content : undefined, "one\ntwo\n");
    });
    scenario(id, "read_file errors: not_found for a missing file, permission_denied outside the roots", async () => {
      const missing = await host().invoke({
        id: "read-2",
        toolName: "read_file",
        arguments: { path: "missing.txt" },
        callContext: at("s-fs"),
      });
      assert.equal(errorCategory(host(), missing), ToolErrorCategory.NOT_FOUND);
      const outside = await host().invoke({
        id: "read-3",
        toolName: "read_file",
        arguments: { path: "/etc/hostname" },
        callContext: at("s-fs"),
      });
      assert.equal(errorCategory(host(), outside), ToolErrorCategory.PERMISSION_DENIED);
    });
  },
};

for (const provider of examples.values()) {
  const scenarios = exampleScenarios[provider.name];
  describeProviderInterop({ name: provider.name, provider: () => provider, ...(scenarios ? { scenarios } : {}) });
}
