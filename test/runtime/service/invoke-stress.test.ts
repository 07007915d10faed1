// 10,000 invokes at 64 concurrent calls with a mix of misbehaving handlers: every call gets
// exactly one terminal event (none when cancelled), of the category its behaviour prescribes.
import assert from "node:assert/strict";
import { it } from "node:test";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineProvider, ToolError } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { dataTool } from "./support/sample-tools.js";
import { invokeRequest, recordingSink } from "./support/recording-sink.js";

const behaviours = [
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "tool-error",
  "throw",
  "invalid-output",
  "progress",
  "cancel",
  "hang",
] as const;
type Behaviour = (typeof behaviours)[number];

const expected: { readonly [B in Behaviour]: string | undefined } = {
  ok: "result",
  progress: "result",
  "tool-error": `error:${ToolErrorCategory.EXECUTION_FAILED}`,
  throw: `error:${ToolErrorCategory.UNKNOWN}`,
  "invalid-output": `error:${ToolErrorCategory.UNKNOWN}`,
  hang: `error:${ToolErrorCategory.TIMEOUT}`,
  cancel: undefined,
};

it("10,000 invokes at 64 concurrent calls lose and duplicate no terminal event", async () => {
  // Hanging calls go to a tool with a short timeout; the rest to one whose timeout load cannot reach.
  const mixed = dataTool("mixed", { defaultTimeoutMs: 60_000, streaming: true });
  const hangs = dataTool("hangs", { defaultTimeoutMs: 15 });
  const handler = async (input: { text: string }, ctx: { progress(m: string): void }) => {
    const b = input.text as Behaviour;
    await new Promise((resolve) => setImmediate(resolve));
    switch (b) {
      case "tool-error":
        throw new ToolError("execution_failed", "no");
      case "throw":
        throw new Error("bug");
      case "invalid-output":
        return { text: 1 };
      case "progress":
        ctx.progress("p");
        return { text: "p" };
      case "cancel":
      case "hang":
        return new Promise(() => {});
      default:
        return { text: b };
    }
  };
  const service = createToolService(
    defineProvider(
      { name: "stress", version: "1", source: "github.com/acme/s", tools: { mixed, hangs } },
      { mixed: handler as never, hangs: handler as never },
    ),
    { stderr: () => {}, settleGraceMs: 5 },
  );
  const total = 10_000;
  const concurrency = 64;
  let next = 0;
  const mismatches: string[] = [];
  const counts = new Map<string, number>();
  async function worker(): Promise<void> {
    while (next < total) {
      const n = next++;
      const b = behaviours[n % behaviours.length]!;
      const rec = recordingSink();
      const done = service.invoke(
        invokeRequest(b === "hang" ? "hangs" : "mixed", { text: b }, { id: `call-${n}` }),
        rec.sink,
      );
      if (b === "cancel") setImmediate(() => setImmediate(() => rec.cancel()));
      await done;
      const terminals = rec.terminals();
      const got = terminals.map((t) =>
        t.event.case === "error" ? `error:${t.event.value.category}` : String(t.event.case),
      );
      const want = expected[b];
      if (want === undefined ? got.length !== 0 : got.length !== 1 || got[0] !== want)
        mismatches.push(`call ${n} (${b}): ${got.join(",") || "no terminal"}`);
      if (terminals.length > 0 && rec.events[rec.events.length - 1] !== terminals[0])
        mismatches.push(`call ${n}: events after the terminal`);
      counts.set(b, (counts.get(b) ?? 0) + 1);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  assert.deepEqual(mismatches.slice(0, 10), []);
  assert.equal(
    [...counts.values()].reduce((a, b) => a + b, 0),
    total,
  );
  assert.equal(service.inFlight(), 0);
});
