// Invoke stream rules: exactly one terminal event; intermediate events only for streaming tools;
// exit_status at most once and only for process-backed tools, which must emit it; order kept.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OutputStream, ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { echo, exec, providerWith, stream } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink, sleep, terminalError } from "./support/recording-sink.js";

async function invoke(
  tool: typeof echo | typeof stream | typeof exec,
  handler: (input: any, ctx: any) => Promise<unknown>,
) {
  const service = createToolService(providerWith(tool as never, handler), { stderr: () => {} });
  const rec = recordingSink();
  await service.invoke(invokeRequest(tool.declaration.name, { text: "a" }), rec.sink);
  return rec;
}

describe("stream rules", () => {
  it("a streaming tool's progress and partial results come before the one result", async () => {
    const rec = await invoke(stream, async (i, ctx) => {
      ctx.progress("half", 0.5);
      ctx.partialResult({ so_far: "a" });
      ctx.progress("over", 7);
      return { text: i.text };
    });
    assert.deepEqual(rec.cases(), ["progress", "partialResult", "progress", "result"]);
    const p = rec.events[2]!.event;
    assert.equal(p.case === "progress" && p.value.fractionComplete, 1);
  });

  it("a non-streaming tool calling progress() emits nothing and ends as a provider bug", async () => {
    const rec = await invoke(echo, async (i, ctx) => {
      try {
        ctx.progress("sneaky");
      } catch {
        // A JavaScript author swallowing the error does not get the event through either.
      }
      return { text: i.text };
    });
    assert.deepEqual(rec.cases(), ["error"]);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.UNKNOWN);
    assert.match(t.case === "error" ? t.value.message : "", /provider bug.*progress\(\).*not declared streaming/);
  });

  it("a non-process tool calling exitStatus() emits nothing and ends as a provider bug", async () => {
    const rec = await invoke(stream, async (i, ctx) => {
      ctx.exitStatus(0);
      return { text: i.text };
    });
    assert.deepEqual(rec.cases(), ["error"]);
    assert.match(terminalError(rec).message, /not declared process_backed/);
  });

  it("a streaming tool that runs no process streams output chunks, in order with its other events", async () => {
    const rec = await invoke(stream, async (i, ctx) => {
      await ctx.output("stdout", "row 1\n");
      ctx.progress("half", 0.5);
      await ctx.output("stderr", "warning\n");
      return { text: i.text };
    });
    assert.deepEqual(rec.cases(), ["outputChunk", "progress", "outputChunk", "result"]);
    const chunks = rec.events.flatMap((e) => (e.event.case === "outputChunk" ? [e.event.value] : []));
    assert.deepEqual(
      chunks.map((c) => [c.stream, Buffer.from(c.data).toString()]),
      [
        [OutputStream.STDOUT, "row 1\n"],
        [OutputStream.STDERR, "warning\n"],
      ],
    );
  });

  it("a non-streaming tool calling output() emits nothing and ends as a provider bug", async () => {
    const rec = await invoke(echo, async (i, ctx) => {
      ctx.output("stdout", "x");
      return { text: i.text };
    });
    assert.deepEqual(rec.cases(), ["error"]);
    assert.match(terminalError(rec).message, /provider bug.*output\(\).*not declared streaming/);
  });

  it("a second exit_status throws, is not sent, and ends the call as a provider bug", async () => {
    let threw = false;
    const rec = await invoke(exec, async (i, ctx) => {
      ctx.exitStatus(0);
      try {
        ctx.exitStatus(1);
      } catch {
        threw = true;
      }
      return { text: i.text };
    });
    assert.equal(threw, true);
    assert.deepEqual(rec.cases(), ["exitStatus", "error"]);
    assert.match(terminalError(rec).message, /exit_status was emitted twice/);
  });

  it("a process-backed tool that returns without exit_status is a provider bug, and its result is not sent", async () => {
    const rec = await invoke(exec, async (i, ctx) => {
      ctx.output("stdout", "hi");
      return { text: i.text };
    });
    assert.deepEqual(rec.cases(), ["outputChunk", "error"]);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.UNKNOWN);
    assert.match(t.case === "error" ? t.value.message : "", /provider bug.*without an exit_status/);
  });

  it("a process-backed tool that fails without exit_status keeps its own error", async () => {
    const { ToolError } = await import("../../../runtime/index.js");
    const rec = await invoke(exec, async () => {
      throw new ToolError("not_found", "no such command");
    });
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.NOT_FOUND);
  });

  it("output chunks keep their order across stdout and stderr", async () => {
    const rec = await invoke(exec, async (i, ctx) => {
      for (let n = 0; n < 50; n++) ctx.output(n % 3 === 0 ? "stderr" : "stdout", `chunk ${n};`);
      ctx.exitStatus(0);
      return { text: i.text };
    });
    const chunks = rec.events
      .filter((e) => e.event.case === "outputChunk")
      .map((e) => e.event.value as { stream: OutputStream; data: Uint8Array });
    assert.equal(chunks.length, 50);
    chunks.forEach((c, n) => {
      assert.equal(Buffer.from(c.data).toString(), `chunk ${n};`);
      assert.equal(c.stream, n % 3 === 0 ? OutputStream.STDERR : OutputStream.STDOUT);
    });
    assert.deepEqual(rec.cases().slice(-2), ["exitStatus", "result"]);
  });

  it("methods taken off the context (destructured) behave as called on it, guards included", async () => {
    const rec = await invoke(exec, async (i, ctx) => {
      const { output, exitStatus, progress, resolvePath } = ctx;
      progress("start");
      await output("stdout", resolvePath("x"));
      exitStatus(0);
      return { text: i.text };
    });
    assert.deepEqual(rec.cases(), ["progress", "outputChunk", "exitStatus", "result"]);
    const chunk = rec.events[1]!.event;
    assert.match(chunk.case === "outputChunk" ? Buffer.from(chunk.value.data).toString() : "", /\/x$/);
    const guarded = await invoke(echo, async (i, { progress, exitStatus }) => {
      assert.equal(progress, progress);
      assert.throws(() => exitStatus(0), /not declared process_backed/);
      return { text: i.text };
    });
    assert.match(terminalError(guarded).message, /provider bug.*exitStatus\(\).*not declared process_backed/);
  });

  it("events a handler emits after its call ended are dropped", async () => {
    let late: (() => void) | undefined;
    const rec = await invoke(stream, async (i, ctx) => {
      late = () => ctx.progress("too late");
      return { text: i.text };
    });
    late!();
    await sleep(1);
    assert.deepEqual(rec.cases(), ["result"]);
  });
});
