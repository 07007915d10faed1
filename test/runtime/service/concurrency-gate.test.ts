// The in-process ConcurrencySpec gate: same-key calls and safe:false calls are serialized, other
// calls run in parallel, and a call stuck behind an orphaned handler gets concurrency_conflict.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineProvider, defineTool } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { claimFor, ConcurrencyGate } from "../../../runtime/service/calls/concurrency-gate.js";
import { pathSchema } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink, sleep } from "./support/recording-sink.js";

const keyed = defineTool<{ path: string }, { path: string }>()({
  name: "keyed",
  kind: "resource",
  risk: "moderate",
  description: "Keyed on path.",
  inputSchema: pathSchema,
  outputSchema: pathSchema,
  concurrency: { safe: true, keyFields: ["path"] },
  idempotent: false,
  defaultTimeoutMs: 5_000,
});
const exclusive = defineTool<{ path: string }, { path: string }>()({
  name: "exclusive",
  kind: "resource",
  risk: "high",
  description: "Takes the provider-wide lock.",
  inputSchema: pathSchema,
  outputSchema: pathSchema,
  concurrency: { safe: false },
  idempotent: false,
  defaultTimeoutMs: 5_000,
});
const free = defineTool<{ path: string }, { path: string }>()({
  name: "free",
  kind: "data_source",
  risk: "read_only",
  description: "Never conflicts.",
  inputSchema: pathSchema,
  outputSchema: pathSchema,
  concurrency: { safe: true },
  idempotent: true,
  defaultTimeoutMs: 5_000,
});

/** A provider whose handlers record overlaps: each holds until released by the test. */
function tracked() {
  const running = new Map<string, number>();
  let maxOverlap = 0;
  const log: string[] = [];
  const gates: (() => void)[] = [];
  const handler = (name: string) => async (input: { path: string }) => {
    running.set(name, (running.get(name) ?? 0) + 1);
    const total = [...running.values()].reduce((a, b) => a + b, 0);
    maxOverlap = Math.max(maxOverlap, total);
    log.push(`start ${name} ${input.path}`);
    await new Promise<void>((resolve) => gates.push(resolve));
    log.push(`end ${name} ${input.path}`);
    running.set(name, running.get(name)! - 1);
    return input;
  };
  const provider = defineProvider(
    { name: "p", version: "1", source: "github.com/acme/s", tools: { keyed, exclusive, free } },
    { keyed: handler("keyed"), exclusive: handler("exclusive"), free: handler("free") },
  );
  const service = createToolService(provider, { stderr: () => {}, settleGraceMs: 5 });
  const releaseAll = async () => {
    while (gates.length > 0) {
      gates.shift()!();
      await sleep(1);
    }
  };
  return { service, log, releaseAll, maxOverlap: () => maxOverlap, gates };
}

function start(service: ReturnType<typeof tracked>["service"], tool: string, path: string) {
  const rec = recordingSink();
  const done = service.invoke(invokeRequest(tool, { path }, { id: `${tool}-${path}` }), rec.sink);
  return { rec, done };
}

describe("concurrency gate", () => {
  it("serializes same-key calls and lets different keys run in parallel", async () => {
    const t = tracked();
    const a1 = start(t.service, "keyed", "a");
    const a2 = start(t.service, "keyed", "a");
    const b = start(t.service, "keyed", "b");
    await sleep(2);
    assert.deepEqual(t.log, ["start keyed a", "start keyed b"]);
    await t.releaseAll();
    await Promise.all([a1.done, a2.done, b.done]);
    assert.ok(t.log.indexOf("start keyed a", 1) > t.log.indexOf("end keyed a"), t.log.join(" | "));
    for (const c of [a1, a2, b]) assert.equal(onlyTerminal(c.rec).case, "result");
  });

  it("a safe:false call runs alone: it waits for running calls, and later calls wait for it", async () => {
    const t = tracked();
    const f1 = start(t.service, "free", "1");
    await sleep(1);
    const x = start(t.service, "exclusive", "x");
    const f2 = start(t.service, "free", "2");
    await sleep(2);
    assert.deepEqual(t.log, ["start free 1"]);
    await t.releaseAll();
    await Promise.all([f1.done, x.done, f2.done]);
    assert.deepEqual(t.log, [
      "start free 1",
      "end free 1",
      "start exclusive x",
      "end exclusive x",
      "start free 2",
      "end free 2",
    ]);
  });

  it("safe:true calls without keys run in parallel", async () => {
    const t = tracked();
    const calls = [1, 2, 3, 4].map((n) => start(t.service, "free", String(n)));
    await sleep(2);
    assert.equal(t.maxOverlap(), 4);
    await t.releaseAll();
    await Promise.all(calls.map((c) => c.done));
  });

  it("a call behind an orphan (cancelled, handler still running) gets a retryable concurrency_conflict", async () => {
    const t = tracked();
    const first = start(t.service, "keyed", "a");
    await sleep(1);
    first.rec.cancel();
    await first.done; // the grace passes; the handler is still holding "a"
    const second = start(t.service, "keyed", "a");
    await second.done;
    const term = onlyTerminal(second.rec);
    assert.equal(term.case === "error" && term.value.category, ToolErrorCategory.CONCURRENCY_CONFLICT);
    assert.equal(term.case === "error" && term.value.retryable, true);
    // Both calls named by tool and quoted call id (both ids are keyed-a here).
    assert.match(
      term.case === "error" ? term.value.message : "",
      /^keyed call "keyed-a" conflicts with keyed call "keyed-a", which was cancelled/,
    );
    assert.deepEqual(term.case === "error" ? term.value.details : undefined, { held_by: 'keyed call "keyed-a"' });
    await t.releaseAll();
  });

  it("a waiting call that is cancelled leaves the queue without running", async () => {
    const t = tracked();
    const first = start(t.service, "keyed", "a");
    const second = start(t.service, "keyed", "a");
    await sleep(1);
    second.rec.cancel();
    await second.done;
    await t.releaseAll();
    await first.done;
    assert.deepEqual(t.log, ["start keyed a", "end keyed a"]);
    assert.deepEqual(second.rec.cases(), []);
  });

  it("claims: interactive calls share one lane; keyed claims compare values across tools", () => {
    const gate = new ConcurrencyGate();
    const signal = new AbortController().signal;
    const ask = { ...free.declaration, kind: "interactive" as const, concurrency: undefined } as never;
    const lease = gate.acquire(claimFor(ask, {}, "1"), signal);
    assert.ok(!(lease instanceof Promise));
    assert.ok(gate.acquire(claimFor(ask, {}, "2"), signal) instanceof Promise);
    assert.deepEqual(
      claimFor(keyed.declaration, { path: "a" }, "x").keys,
      claimFor({ ...keyed.declaration, name: "other" }, { path: "a" }, "y").keys,
    );
  });
});
