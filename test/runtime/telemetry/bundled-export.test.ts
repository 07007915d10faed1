// A provider bundled into one file (as `harness-tool bundle` makes dist/provider.mjs) keeps the
// OpenTelemetry SDK out of the bundle, loads it from node_modules beside it when export is asked
// for, and exports its spans even though the bundle carries its own copy of the API.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { build } from "esbuild";
import { launch } from "../../../runtime/testing/index.js";
import { repoRoot } from "../../support/buf.js";

test("a bundled provider exports its spans through the SDK beside it, which the bundle does not contain", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-bundled-export-"));
  try {
    const outfile = path.join(dir, "provider.mjs");
    // bundle-command.ts's settings, with the source condition this checkout resolves harness-tool by.
    await build({
      entryPoints: [path.join(repoRoot, "test/runtime/transport/fixtures/sample-provider.ts")],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      conditions: ["harness-tool-source", "module"],
      banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
      logLevel: "silent",
    });
    const bundle = readFileSync(outfile, "utf8");
    assert.match(bundle, /traceparent/, "the runtime's tracing is in the bundle");
    assert.doesNotMatch(
      bundle,
      /class BatchSpanProcessor|class OTLPTraceExporter|class NodeTracerProvider/,
      "the SDK is not",
    );
    symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));

    const p = await launch(process.execPath, { args: [outfile], cwd: dir, traces: true, handshakeTimeoutMs: 30_000 });
    try {
      await p.configure({ root: dir });
      const call = await p.invoke({
        id: "bundled-1",
        toolName: "echo",
        arguments: { text: "a" },
        callContext: { workingDirectory: dir },
      }).done;
      assert.equal(call.events.at(-1)?.event.case, "result");
    } finally {
      await p.kill();
    }
    const invoke = p.spans().find((s) => s.name === "pluggableharness.tool.v1.ToolService/Invoke");
    assert.ok(
      invoke,
      `no Invoke span; spans: ${p
        .spans()
        .map((s) => s.name)
        .join(", ")}; stderr: ${p.stderr.map((e) => e.raw).join(" | ")}`,
    );
    assert.equal(invoke.traceId, p.traceId);
    assert.equal(invoke.attributes["pluggableharness.tool.call_id"], "bundled-1");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
