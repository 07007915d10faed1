// Nothing hangs (docs/runtime.md#nothing-hangs): the faults real dependencies brought, through the executable
// `harness-tool bundle` writes (which decides supervision before it loads the bundle), launched by
// harness-tool/testing's host and by go-plugin v1.8.0's (test/runtime/interop/host). A dependency
// that throws at import ends the process with the reason where the host shows it; one that breaks
// Error.prepareStackTrace at its first use ends that call with `unknown` and the provider serves
// on; a top-level await that never settles ends the process; a handler that never resolves ends at
// its default_timeout; a configure hook that never ends is refused within the Configure deadline; a
// handler that calls process.exit or SIGKILLs its own process ends the call and the process (the
// supervisor exits with it). Each test fails at its own timeout if anything waits forever.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { ToolErrorCategory } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { launch, ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { bundleCommand } from "../../../cli/commands/bundle-command.js";
import { GrpcCode } from "../../../runtime/errors/rpc-status-error.js";
import { GoHost } from "../interop/go-host.js";
import { goHostBinary, goSkip } from "../interop/host-matrix.js";
import { repoRoot } from "../interop/providers.js";
import { launchWithGoHost } from "../interop/scenario-host.js";

const fixture = "test/runtime/transport/fixtures/load-faults/faulty-provider.ts";
const bundleDir = mkdtempSync(path.join(tmpdir(), "harness-tool-load-faults-"));
const executable = path.join(bundleDir, "provider.mjs");
/** Generous bounds for a loaded two-core machine: each is a test's timeout, never a speed claim. */
const testTimeout = { timeout: 60_000 };

before(async () => {
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  assert.equal(
    await bundleCommand(path.join(repoRoot, fixture), { outfile: executable, external: [], out: silent }),
    0,
  );
});
after(() => rmSync(bundleDir, { recursive: true, force: true }));

const start = (fault?: string) =>
  launch(process.execPath, {
    args: [executable],
    cwd: bundleDir,
    handshakeTimeoutMs: 30_000,
    ...(fault ? { env: { HARNESS_TOOL_TEST_FAULT: fault } } : {}),
  });

const call = (provider: LaunchedProvider, toolName: string) =>
  provider.invoke({
    id: `${toolName}-1`,
    toolName,
    arguments: { text: "a" },
    callContext: { workingDirectory: bundleDir },
  }).done;

describe("the bundled executable under harness-tool/testing's host", () => {
  it(
    "a dependency that throws at import: the launch fails with its reason, from the line in the handshake's place",
    testTimeout,
    async () => {
      await assert.rejects(start("import"), (error: Error) => {
        // Node 22 words the ES module's missing __filename as a module-format hint; 24 names it.
        assert.match(
          error.message,
          /the provider cannot start: ReferenceError: .*(__filename|Cannot determine intended module format)/,
        );
        return true;
      });
    },
  );

  it(
    "a top-level await that never settles: the process ends, the launch says it exited before the handshake",
    testTimeout,
    async () => {
      await assert.rejects(start("await"), (error: Error) => {
        assert.match(error.message, /exited with code 13 before serve\(\) made the handshake/);
        return true;
      });
    },
  );

  describe("a provider that started", () => {
    let provider: LaunchedProvider;
    before(async () => {
      provider = await start();
      await provider.configure({});
    });
    after(() => provider?.kill());

    it(
      "a dependency that breaks Error.prepareStackTrace at its first use: the call ends unknown, the next one is served",
      testTimeout,
      async () => {
        const first = await call(provider, "native");
        const error = first.events.at(-1)?.event;
        assert.ok(error?.case === "error", JSON.stringify(first.events));
        assert.equal(error.value.category, ToolErrorCategory.UNKNOWN);
        assert.equal(error.value.message, "native failed: __filename is not defined");
        assert.deepEqual(error.value.details, {
          error: { name: "ReferenceError", message: "__filename is not defined" },
        });
        const logged = provider.stderr.find(
          (e) => e.level === "error" && e.message === "native failed: __filename is not defined",
        );
        assert.match(
          String(logged?.fields["stack"]),
          /reading it threw, as every stack does once a dependency replaced Error\.prepareStackTrace/,
        );
        // The hook the dependency left behind still throws on every stack read: the service reads around it.
        const second = await call(provider, "native");
        assert.equal(second.events.at(-1)?.event.case, "error");
      },
    );

    it("a handler that never resolves ends at its default_timeout with a retryable timeout", testTimeout, async () => {
      const outcome = await call(provider, "hang");
      const error = outcome.events.at(-1)?.event;
      assert.ok(error?.case === "error", JSON.stringify(outcome.events));
      assert.equal(error.value.category, ToolErrorCategory.TIMEOUT);
      assert.equal(error.value.retryable, true);
      assert.match(error.value.message, /did not finish within its default timeout of 1500 ms/);
    });

    it(
      "a configure hook that never ends is refused before the Configure deadline, with the reason",
      testTimeout,
      async () => {
        const refused = await provider.configure({ configure_hangs: true }, { timeoutMs: 3000 }).then(
          () => assert.fail("Configure accepted"),
          (error: unknown) => error,
        );
        assert.ok(refused instanceof ProviderCallError, String(refused));
        assert.equal(refused.code, GrpcCode.DEADLINE_EXCEEDED);
        assert.equal(refused.toolError?.category, ToolErrorCategory.TIMEOUT);
        assert.match(refused.details, /configure hook did not finish within the Configure call's deadline/);
        // The configuration before it stays in force.
        assert.equal((await call(provider, "hang")).events.at(-1)?.event.case, "error");
      },
    );
  });

  for (const [tool, how] of [
    ["exit", /exit code 3/],
    ["sigkill", /SIGKILL/],
  ] as const) {
    it(
      `a handler that ends its own process (${tool}): the call fails, the launched process exits with it`,
      testTimeout,
      async () => {
        const provider = await start();
        try {
          await provider.configure({});
          const outcome = await call(provider, tool);
          assert.equal(outcome.events.length, 0, JSON.stringify(outcome.events));
          assert.equal(outcome.code, GrpcCode.UNAVAILABLE, outcome.details);
          const exit = await provider.exited;
          const { describeExit } = await import("harness-tool/testing");
          assert.match(describeExit(exit), how);
        } finally {
          await provider.kill();
        }
      },
    );
  }
});

describe("the bundled executable under go-plugin v1.8.0's host", { skip: goSkip }, () => {
  const command = { name: "faulty-bundled", command: process.execPath, args: [executable], cwd: bundleDir };

  it("a dependency that throws at import: the host's launch error names it", testTimeout, async () => {
    const go = new GoHost(goHostBinary());
    try {
      await assert.rejects(
        launchWithGoHost(go, command, { env: { HARNESS_TOOL_TEST_FAULT: "import" } }),
        (error: Error) => {
          assert.match(
            error.message,
            /the provider cannot start: ReferenceError: .*(__filename|Cannot determine intended module format)/,
          );
          return true;
        },
      );
    } finally {
      await go.close();
    }
  });

  it(
    "a broken Error.prepareStackTrace, a handler that never resolves: each call ends, the provider serves on",
    testTimeout,
    async () => {
      const go = new GoHost(goHostBinary());
      try {
        const host = await launchWithGoHost(go, command);
        assert.equal((await host.configure({})).code, 0);
        const native = await host.invoke({ id: "native-go", toolName: "native", arguments: { text: "a" } });
        const nativeEnd = native.events.at(-1)?.event;
        assert.ok(
          nativeEnd?.case === "error" && nativeEnd.value.category === ToolErrorCategory.UNKNOWN,
          JSON.stringify(native),
        );
        const hang = await host.invoke({ id: "hang-go", toolName: "hang", arguments: { text: "a" } });
        const hangEnd = hang.events.at(-1)?.event;
        assert.ok(
          hangEnd?.case === "error" && hangEnd.value.category === ToolErrorCategory.TIMEOUT,
          JSON.stringify(hang),
        );
      } finally {
        await go.close();
      }
    },
  );
});
