// The inspector redacts what it shows by itself, not only trusting the provider's runtime: a
// provider that writes its configured secret straight to fd 2 shows in the page's log lines, over
// the event stream and in the state, with the secret replaced by the marker; so do a hook
// subscriber's answers, failures and Log lines that carry it around the runtime.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { HookCallView, InspectorSnapshot } from "../../cli/inspector/protocol/page-protocol.js";
import { repoRoot } from "../support/buf.js";
import { startInspector, type RunningInspector } from "../support/inspector-browser.js";

const secret = "sk-leaked-SECRET-9b7e";
const token = "tok-nested-SECRET-41c0";
let dir = "";
let inspector: RunningInspector;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-leak-"));
  inspector = await startInspector(path.join(repoRoot, "test/cli/fixtures/leaky-provider.ts"), {
    dir,
    config: { api_key: secret, upstream: { token: token } },
  });
});
after(async () => {
  await inspector?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("redacts a secret the provider leaks around its runtime, on the stream and in the state", async () => {
  const controller = new AbortController();
  const stream = await fetch(new URL("events", inspector.url), { signal: controller.signal });
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  let streamed = "";
  const streamedLeak = (async () => {
    const decoder = new TextDecoder();
    while (!streamed.includes("calling the API with key")) {
      const { value, done } = await reader.read();
      if (done) break;
      streamed += decoder.decode(value, { stream: true });
    }
  })();
  const invoked = await fetch(new URL("api/invoke", inspector.url), {
    method: "POST",
    body: JSON.stringify({ tool: "leak", args: {} }),
  });
  assert.equal(invoked.status, 200);
  await streamedLeak;
  controller.abort();
  assert.match(streamed, /calling the API with key \[REDACTED\] and token \[REDACTED\]/);
  assert.doesNotMatch(streamed, new RegExp(secret));
  const state = await (await fetch(new URL("api/state", inspector.url))).text();
  assert.match(state, /"level":"warn","message":"calling the API with key \[REDACTED\] and token \[REDACTED\]"/);
  assert.doesNotMatch(state, new RegExp(secret));
  assert.doesNotMatch(state, new RegExp(token));
  assert.match(state, /"api_key":"\[REDACTED\]","upstream":\{"token":"\[REDACTED\]"\}/);
});

async function post(route: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL(route, inspector.url), { method: "POST", body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it("keeps top-level and nested secrets the page leaves empty, and refuses to keep what is no secret", async () => {
  const kept = await post("api/configure", { config: {}, keep: ["api_key", "upstream.token"] });
  assert.equal(kept.status, 200);
  assert.deepEqual(kept.body["state"], {
    config: { api_key: "[REDACTED]", upstream: { token: "[REDACTED]" } },
    inForce: true,
    secretsSet: ["api_key", "upstream.token"],
    status: "accepted",
  });
  const dropped = await post("api/configure", { config: { upstream: {} }, keep: ["api_key"] });
  assert.deepEqual((dropped.body["state"] as { secretsSet: string[] }).secretsSet, ["api_key"]);
  for (const keep of ["upstream", "nope", "api_key.x", "upstream.nope"]) {
    const refused = await post("api/configure", { config: {}, keep: [keep] });
    assert.equal(refused.status, 400, keep);
    assert.match(String(refused.body["error"]), /is not a sensitive attribute/);
  }
});

describe("hook calls", () => {
  const hookSecret = "sk-hook-SECRET-c4e1";
  let hookDir = "";
  let hooked: RunningInspector;
  before(async () => {
    hookDir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-hook-leak-"));
    hooked = await startInspector(path.join(repoRoot, "test/cli/fixtures/leaky-hook-provider.ts"), {
      dir: hookDir,
      config: { api_key: hookSecret },
    });
  });
  after(async () => {
    await hooked?.stop();
    rmSync(hookDir, { recursive: true, force: true });
  });

  async function fire(body: object): Promise<HookCallView> {
    const started = await fetch(new URL("api/hook", hooked.url), { method: "POST", body: JSON.stringify(body) });
    assert.equal(started.status, 200);
    const id = ((await started.json()) as HookCallView).id;
    for (let i = 0; i < 200; i++) {
      const state = (await (await fetch(new URL("api/state", hooked.url))).json()) as InspectorSnapshot;
      const hook = state.hooks.find((h) => h.id === id);
      if (hook?.answer && (body as { point: string }).point !== "post-tool-call") return hook;
      if (hook?.answer && hook.logs.length > 0) return hook;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`the hook call ${id} never answered`);
  }

  it("redacts the secret in a transform's payload, a failure's message and a handler's Log line", async () => {
    const controller = new AbortController();
    const stream = await fetch(new URL("events", hooked.url), { signal: controller.signal });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let streamed = "";
    const reading = (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) break;
        streamed += decoder.decode(value, { stream: true });
      }
    })();
    const transformed = await fire({
      point: "pre-model-call",
      mode: "transform",
      payload: {
        messages: [{ role: "ROLE_USER", content: [{ text: { text: "hello" } }] }],
        model: { provider: "anthropic", id: "claude" },
      },
    });
    assert.ok(transformed.answer?.ok && transformed.answer.outcome === "transform");
    assert.deepEqual(transformed.answer.payload, {
      messages: [{ role: "ROLE_USER", content: [{ text: { text: "hello (key [REDACTED])" } }] }],
      model: { provider: "anthropic", id: "claude" },
    });
    const failed = await fire({ point: "plan-ready", mode: "veto", payload: { plan: { turnId: "1", items: [] } } });
    assert.ok(failed.answer && !failed.answer.ok);
    assert.equal(failed.answer.category, "VETO_FAILED");
    assert.equal(failed.answer.message, "the policy store refused key [REDACTED]");
    assert.match(
      failed.answer.line,
      /^DispatchHook failed \(gRPC status 13, HookError VETO_FAILED\): the policy store refused key \[REDACTED\]; the kernel fails closed: deny$/,
    );
    const observed = await fire({
      point: "post-tool-call",
      mode: "observe",
      payload: { call: { id: "c1", toolName: "ping" } },
    });
    assert.deepEqual(observed.logs, [
      {
        level: "warn",
        logger: "leaky-hook.hook.post-tool-call",
        message: "audited with key [REDACTED]",
        fields: { key: "[REDACTED]" },
      },
    ]);
    controller.abort();
    await reading;
    const state = await (await fetch(new URL("api/state", hooked.url))).text();
    for (const shown of [streamed, state]) {
      assert.match(shown, /\[REDACTED\]/);
      assert.doesNotMatch(shown, new RegExp(hookSecret));
    }
  });
});
