// The inspector redacts what it shows by itself, not only trusting the provider's runtime: a
// provider that writes its configured secret straight to fd 2 shows in the page's log lines, over
// the event stream and in the state, with the secret replaced by the marker.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, it } from "node:test";
import { repoRoot } from "../support/buf.js";
import { startInspector, type RunningInspector } from "../support/inspector-browser.js";

const secret = "sk-leaked-SECRET-9b7e";
let dir = "";
let inspector: RunningInspector;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-leak-"));
  inspector = await startInspector(path.join(repoRoot, "test/cli/fixtures/leaky-provider.ts"), { dir, config: { api_key: secret } });
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
  const invoked = await fetch(new URL("api/invoke", inspector.url), { method: "POST", body: JSON.stringify({ tool: "leak", args: {} }) });
  assert.equal(invoked.status, 200);
  await streamedLeak;
  controller.abort();
  assert.match(streamed, /calling the API with key \[REDACTED\]/);
  assert.doesNotMatch(streamed, new RegExp(secret));
  const state = await (await fetch(new URL("api/state", inspector.url))).text();
  assert.match(state, /"level":"warn","message":"calling the API with key \[REDACTED\]"/);
  assert.doesNotMatch(state, new RegExp(secret));
  assert.match(state, /"api_key":"\[REDACTED\]"/);
});
