// The inspector's server without a browser: nothing is served without the token (page, script,
// style, API, event stream), a foreign Host or a cross-site POST is refused, bad requests get a
// clear 400, and the event stream carries a call from its start to its end.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { outputLimitBytes } from "../../cli/inspector/server/call-stream.js";
import type { HookCallView, InspectorSnapshot, StreamMessage } from "../../cli/inspector/protocol/page-protocol.js";
import { repoRoot } from "../support/buf.js";
import { startInspector, type RunningInspector } from "../support/inspector-browser.js";
import { writeProviderScript } from "../support/provider-script.js";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  url: URL,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Reads the event stream until `until` accepts the messages so far; `first` resolves on the first message. */
function readEvents(
  url: URL,
  until: (messages: StreamMessage[]) => boolean,
): { first: Promise<void>; all: Promise<StreamMessage[]> } {
  let opened!: () => void;
  const first = new Promise<void>((resolve) => (opened = resolve));
  const all = new Promise<StreamMessage[]>((resolve, reject) => {
    const messages: StreamMessage[] = [];
    const req = request(url, (res) => {
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split("\n").find((l) => l.startsWith("data: "));
          if (data) messages.push(JSON.parse(data.slice(6)) as StreamMessage);
        }
        if (messages.length > 0) opened();
        if (until(messages)) {
          req.destroy();
          resolve(messages);
        }
      });
    });
    req.on("error", (error) => (messages.length > 0 ? undefined : reject(error)));
    req.end();
  });
  return { first, all };
}

describe("inspect server", () => {
  let dir = "";
  let inspector: RunningInspector;
  let base: URL;
  let token = "";
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-server-"));
    inspector = await startInspector(path.join(repoRoot, "test/cli/fixtures/streaming-provider.ts"), { dir });
    base = new URL(inspector.url);
    token = base.pathname.split("/")[1] ?? "";
  });
  after(async () => {
    assert.equal(await inspector?.stop(), 0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("listens on 127.0.0.1 under a 32-character random token", () => {
    assert.equal(base.hostname, "127.0.0.1");
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
  });

  it("serves nothing without the token", async () => {
    const wrong = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const p of [
      "/",
      "/inspector.js",
      "/inspector.css",
      "/events",
      "/api/state",
      `/${wrong}/`,
      `/${wrong}/inspector.js`,
      `/${wrong}/events`,
      `/${wrong}/api/state`,
      "/favicon.ico",
    ]) {
      const answer = await call(new URL(p, base));
      assert.equal(answer.status, 404, `${p} answered ${answer.status}`);
      assert.doesNotMatch(answer.body, /inspector|harness/i);
    }
    const posted = await call(new URL(`/${wrong}/api/invoke`, base), {
      method: "POST",
      body: '{"tool":"run","args":{"script":"touch x"}}',
    });
    assert.equal(posted.status, 404);
  });

  it("serves the page, its script and style with the token, under a strict content security policy", async () => {
    const page = await call(base);
    assert.equal(page.status, 200);
    assert.match(page.body, /<script type="module" src="inspector\.js"><\/script>/);
    assert.match(String(page.headers["content-security-policy"]), /default-src 'none'; script-src 'self'/);
    assert.equal((await call(new URL("inspector.js", base))).status, 200);
    assert.equal((await call(new URL("inspector.css", base))).status, 200);
    const bare = await call(new URL(`/${token}`, base));
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.location, `/${token}/`);
  });

  it("refuses a foreign Host (DNS rebinding) and a cross-site POST", async () => {
    assert.equal((await call(base, { headers: { host: `evil.example:${base.port}` } })).status, 421);
    const crossSite = await call(new URL("api/invoke", base), {
      method: "POST",
      headers: { origin: "http://evil.example", "content-type": "application/json" },
      body: '{"tool":"run","args":{"script":"true"}}',
    });
    assert.equal(crossSite.status, 403);
  });

  it("answers bad requests with a clear 400", async () => {
    const notJson = await call(new URL("api/invoke", base), { method: "POST", body: "{nope" });
    assert.equal(notJson.status, 400);
    assert.match(JSON.parse(notJson.body).error, /not JSON/);
    const notObject = await call(new URL("api/invoke", base), { method: "POST", body: '{"tool":"run","args":[1]}' });
    assert.equal(notObject.status, 400);
    assert.match(JSON.parse(notObject.body).error, /args must be a JSON object/);
    const unknownCall = await call(new URL("api/cancel", base), { method: "POST", body: '{"id":"nope"}' });
    assert.equal(unknownCall.status, 400);
    const badReply = await call(new URL("api/replies", base), {
      method: "POST",
      body: '{"countTokens":{"count":"many"}}',
    });
    assert.equal(badReply.status, 400);
    assert.match(JSON.parse(badReply.body).error, /CountTokensResult/);
  });

  it("streams a call from the snapshot through its events to its end", async () => {
    const events = readEvents(new URL("events", base), (m) => m.some((x) => x.kind === "call-end"));
    await events.first;
    const started = await call(new URL("api/invoke", base), {
      method: "POST",
      body: JSON.stringify({ tool: "count", args: { to: 3 } }),
    });
    assert.equal(started.status, 200, started.body);
    const id = JSON.parse(started.body).id as string;
    const messages = await events.all;
    assert.equal(messages[0]?.kind, "snapshot");
    const mine = messages.filter((m) => ("id" in m && m.id === id) || (m.kind === "call-start" && m.call.id === id));
    assert.deepEqual(
      mine.map((m) => (m.kind === "call-event" ? `${m.kind}:${m.event.type}` : m.kind)),
      [
        "call-start",
        "call-event:progress",
        "call-event:progress",
        "call-event:progress",
        "call-event:result",
        "call-end",
      ],
    );
    const result = mine.find((m) => m.kind === "call-event" && m.event.type === "result");
    assert.deepEqual(result?.kind === "call-event" && result.event, {
      type: "result",
      payload: { counted: 3 },
      violations: [],
    });
    const state = JSON.parse((await call(new URL("api/state", base))).body);
    assert.equal(state.calls.at(-1).end.status, "OK");
    assert.equal(state.identity.name, "streaming");
    // No hook points advertised: no Hooks panel.
    assert.deepEqual(state.hookPoints, []);
  });

  it("cancels a running call through the API: CANCELLED, no terminal event", async () => {
    const started = await call(new URL("api/invoke", base), {
      method: "POST",
      body: JSON.stringify({ tool: "count", args: { to: 1000 } }),
    });
    const id = JSON.parse(started.body).id as string;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(
      (await call(new URL("api/cancel", base), { method: "POST", body: JSON.stringify({ id }) })).status,
      200,
    );
    for (let i = 0; i < 100; i++) {
      const state = JSON.parse((await call(new URL("api/state", base))).body);
      const mine = state.calls.find((c: { id: string }) => c.id === id);
      if (mine.end) {
        assert.equal(mine.end.status, "CANCELLED");
        assert.equal(mine.end.cancelled, true);
        assert.equal(
          mine.events.some((e: { type: string }) => e.type === "result" || e.type === "error"),
          false,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail("the cancelled call never ended");
  });
  it("keeps 1 MiB of a call's output and counts the rest", async () => {
    const started = await call(new URL("api/invoke", base), {
      method: "POST",
      body: JSON.stringify({
        tool: "run",
        args: { script: "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo tail-line" },
      }),
    });
    const id = JSON.parse(started.body).id as string;
    for (let i = 0; i < 400; i++) {
      const state = JSON.parse((await call(new URL("api/state", base))).body);
      const mine = state.calls.find((c: { id: string }) => c.id === id);
      if (mine.end) {
        const output = mine.events
          .filter((e: { type: string }) => e.type === "output")
          .map((e: { text: string }) => e.text);
        const kept = output.slice(0, -1).join("");
        assert.ok(
          kept.length <= outputLimitBytes && kept.length > outputLimitBytes - 70_000,
          `kept ${kept.length} characters`,
        );
        assert.match(output.at(-1), /\[harness-tool inspect: \d+ more bytes of output not shown\]/);
        const dropped = Number(/(\d+) more bytes/.exec(output.at(-1))?.[1]);
        assert.equal(kept.length + dropped, 3_000_000 + "\ntail-line\n".length);
        assert.equal(mine.events.at(-1).type, "result");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail("the call never ended");
  });

  it("outlives a provider that dies mid-call: the call ends with the problem, the identity says how it exited", async () => {
    // The script kills its parent, the provider itself, while the call runs.
    const started = await call(new URL("api/invoke", base), {
      method: "POST",
      body: JSON.stringify({ tool: "run", args: { script: "echo going; kill -9 $PPID; sleep 5" } }),
    });
    assert.equal(started.status, 200, started.body);
    const id = JSON.parse(started.body).id as string;
    for (let i = 0; i < 200; i++) {
      const state = JSON.parse((await call(new URL("api/state", base))).body);
      const mine = state.calls.find((c: { id: string }) => c.id === id);
      if (mine.end && state.identity.exited) {
        assert.equal(mine.end.cancelled, false);
        assert.match(mine.end.problem, /the RPC failed before a terminal event: the provider exited during the call/);
        assert.equal(state.identity.exited, "the provider was ended by SIGKILL");
        assert.match(
          inspector.errors(),
          /^harness-tool inspect: the provider was ended by SIGKILL; the page's Restart launches it again$/m,
        );
        // The page is still served, and a new call fails cleanly instead of taking the server down.
        const again = await call(new URL("api/invoke", base), {
          method: "POST",
          body: JSON.stringify({ tool: "count", args: { to: 1 } }),
        });
        assert.equal(again.status, 200);
        assert.equal((await call(base)).status, 200);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail("the provider's death never showed");
  });

  it("restarts the provider it lost: a new process, configured again, whose calls work; one restart at a time", async () => {
    const before = JSON.parse((await call(new URL("api/state", base))).body);
    const [first, second] = await Promise.all([
      call(new URL("api/restart", base), { method: "POST", body: "{}" }),
      call(new URL("api/restart", base), { method: "POST", body: "{}" }),
    ]);
    const answers = [first, second].sort((a, b) => a.status - b.status);
    assert.equal(answers[0]?.status, 200, answers[0]?.body);
    assert.equal(answers[1]?.status, 400);
    assert.match(answers[1]?.body ?? "", /a restart is already under way/);
    const restarted = JSON.parse(answers[0]?.body ?? "{}") as { ok: boolean; pid: number };
    assert.equal(restarted.ok, true);
    const state = JSON.parse((await call(new URL("api/state", base))).body);
    assert.equal(state.identity.exited, undefined);
    assert.equal(state.identity.pid, restarted.pid);
    assert.notEqual(restarted.pid, before.identity.pid);
    assert.equal(state.configState.status, "accepted");
    // The history of the lost process stays beside the new calls.
    assert.equal(state.calls.length, before.calls.length);
    assert.match(
      inspector.errors(),
      new RegExp(
        `^harness-tool inspect: restarted the provider: .*streaming-provider\\.ts \\(pid ${restarted.pid}\\)$`,
        "m",
      ),
    );
    const started = await call(new URL("api/invoke", base), {
      method: "POST",
      body: JSON.stringify({ tool: "count", args: { to: 2 } }),
    });
    const id = JSON.parse(started.body).id as string;
    for (let i = 0; i < 200; i++) {
      const now = JSON.parse((await call(new URL("api/state", base))).body);
      const mine = now.calls.find((c: { id: string }) => c.id === id);
      if (mine?.end) {
        assert.equal(mine.end.status, "OK", JSON.stringify(mine));
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail("the call on the restarted provider never ended");
  });
});

describe("inspect server: the Hooks panel's API", () => {
  let dir = "";
  let inspector: RunningInspector;
  let base: URL;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-hooks-"));
    // Subscribes plan-ready (veto: deny a plan touching /etc; transform: identity), post-tool-call
    // (observe) and pre-model-call (transform: "secret" → "[hidden]"); its veto logs "judged a plan".
    inspector = await startInspector(path.join(repoRoot, "test/cli/fixtures/hook-misbehaving-provider.ts"), { dir });
    base = new URL(inspector.url);
  });
  after(async () => {
    assert.equal(await inspector?.stop(), 0);
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = (paths: string[]) => ({
    plan: { turnId: "1", items: paths.map((p, i) => ({ id: `i${i}`, toolName: "write_file", input: { path: p } })) },
  });

  /** Fires a hook through the API and waits for its answer in the state. */
  async function fire(body: object): Promise<HookCallView> {
    const started = await call(new URL("api/hook", base), { method: "POST", body: JSON.stringify(body) });
    assert.equal(started.status, 200, started.body);
    const id = (JSON.parse(started.body) as HookCallView).id;
    for (let i = 0; i < 200; i++) {
      const state = JSON.parse((await call(new URL("api/state", base))).body) as InspectorSnapshot;
      const hook = state.hooks.find((h) => h.id === id);
      if (hook?.answer) return hook;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`the hook call ${id} never answered`);
  }

  it("offers every point with check's sample payload, saying which the provider advertises", async () => {
    const state = JSON.parse((await call(new URL("api/state", base))).body) as InspectorSnapshot;
    assert.deepEqual(
      state.hookPoints.map((p) => [p.name, p.advertised]),
      [
        ["session-start", false],
        ["pre-model-call", true],
        ["post-model-response", false],
        ["pre-tool-call", false],
        ["plan-ready", true],
        ["post-tool-call", true],
        ["post-apply", false],
        ["session-end", false],
      ],
    );
    const planReady = state.hookPoints.find((p) => p.name === "plan-ready");
    assert.equal(planReady?.payloadType, "PlanReadyPayload");
    assert.deepEqual(state.hookPoints.find((p) => p.name === "pre-model-call")?.mutable, ["messages"]);
    // check's sample (cli/check/hook-samples.ts), paths relative to the inspector's --cwd.
    const sample = planReady?.sample as {
      plan: { items: { toolName: string; input: { path: string }; decision: string }[] };
    };
    assert.equal(sample.plan.items[0]?.toolName, "write_file");
    assert.equal(sample.plan.items[0]?.decision, "PLAN_DECISION_ALLOW");
    const sessionStart = state.hookPoints.find((p) => p.name === "session-start")?.sample as {
      workingDirectory: string;
    };
    assert.equal(sessionStart.workingDirectory, dir);
    assert.deepEqual(state.hooks, []);
  });

  it("fires a veto and shows the verdict with the Log lines the handler wrote, on the stream too", async () => {
    const events = readEvents(new URL("events", base), (m) =>
      m.some((x) => x.kind === "hook" && x.hook.answer !== undefined),
    );
    await events.first;
    const denied = await fire({ point: "plan-ready", mode: "veto", payload: plan(["notes/a.txt", "/etc/passwd"]) });
    assert.equal(denied.advertised, true);
    assert.equal(denied.timeoutMs, 10_000);
    assert.deepEqual(denied.answer && { ...denied.answer, response: undefined }, {
      ok: true,
      outcome: "veto",
      decision: "deny",
      problems: [],
      response: undefined,
    });
    assert.deepEqual(denied.answer?.ok && denied.answer.response, { veto: { decision: "HOOK_DECISION_DENY" } });
    assert.deepEqual(denied.logs, [
      { level: "info", logger: "hook-misbehaving.hook.plan-ready", message: "judged a plan", fields: { items: 2 } },
    ]);
    const streamed = (await events.all).filter((m) => m.kind === "hook");
    assert.equal(
      streamed[0]?.kind === "hook" && streamed[0].hook.answer,
      undefined,
      "the call is on the stream before its answer",
    );
    const allowed = await fire({ point: "plan-ready", mode: "veto", payload: plan(["notes/a.txt"]) });
    assert.equal(allowed.answer?.ok && allowed.answer.outcome === "veto" && allowed.answer.decision, "allow");
  });

  it("shows a transform's payload and whether it is the identity, and an observer's acknowledgement", async () => {
    const transformed = await fire({
      point: "pre-model-call",
      mode: "transform",
      payload: {
        messages: [{ role: "ROLE_USER", content: [{ text: { text: "the secret is 42" } }] }],
        model: { provider: "anthropic", id: "claude" },
      },
    });
    assert.ok(transformed.answer?.ok && transformed.answer.outcome === "transform", JSON.stringify(transformed.answer));
    assert.equal(transformed.answer.unchanged, false);
    assert.deepEqual(transformed.answer.payload, {
      messages: [{ role: "ROLE_USER", content: [{ text: { text: "the [hidden] is 42" } }] }],
      model: { provider: "anthropic", id: "claude" },
    });
    const identity = await fire({ point: "plan-ready", mode: "transform", payload: plan(["notes/a.txt"]) });
    assert.ok(identity.answer?.ok && identity.answer.outcome === "transform");
    assert.equal(identity.answer.unchanged, true);
    assert.deepEqual(identity.answer.payload, plan(["notes/a.txt"]));
    const observed = await fire({
      point: "post-tool-call",
      mode: "observe",
      payload: { call: { id: "c1", toolName: "ping" } },
      subscriptionId: "audit",
    });
    assert.equal(observed.answer?.ok && observed.answer.outcome, "observe");
    assert.equal(observed.subscriptionId, "audit");
    assert.deepEqual(
      observed.logs.map((l) => [l.message, l.fields]),
      [["tool call finished", { tool: "ping", subscription: "audit" }]],
    );
  });

  it("fires an undeclared mode and an unadvertised point, showing the refusal as the CLI words it", async () => {
    const refused = await fire({ point: "plan-ready", mode: "observe", payload: plan(["notes/a.txt"]) });
    assert.ok(refused.answer && !refused.answer.ok, JSON.stringify(refused.answer));
    assert.equal(refused.answer.status, "INVALID_ARGUMENT");
    assert.equal(refused.answer.category, "INVALID_RESPONSE");
    assert.equal(refused.answer.refused, true);
    assert.match(
      refused.answer.line,
      /^DispatchHook refused \(gRPC status 3, HookError INVALID_RESPONSE\): .*plan-ready.*observe.* \(fire what it subscribes to, or declare this\); the kernel logs it and the chain continues$/,
    );
    const unadvertised = await fire({
      point: "session-end",
      mode: "veto",
      payload: { sessionId: "s", status: "SESSION_STATUS_COMPLETED" },
    });
    assert.equal(unadvertised.advertised, false);
    assert.ok(unadvertised.answer && !unadvertised.answer.ok);
    assert.equal(unadvertised.answer.category, "INVALID_RESPONSE");
    assert.match(unadvertised.answer.line, /; the kernel fails closed: deny$/);
  });

  it("refuses what cannot be fired with a clear 400, before the provider sees it", async () => {
    for (const [body, error] of [
      [
        { point: "plan-readdy", mode: "veto", payload: {} },
        /point must be one of session-start, .*session-end, not "plan-readdy"/,
      ],
      [{ point: "plan-ready", mode: "deny", payload: {} }, /mode must be observe, transform or veto/],
      [{ point: "plan-ready", mode: "veto", payload: [] }, /payload must be a JSON object/],
      [
        { point: "plan-ready", mode: "veto", payload: { plan: { items: 3 } } },
        /the payload is not a PlanReadyPayload \(protobuf JSON\): /,
      ],
      [{ point: "plan-ready", mode: "veto", payload: {}, timeoutMs: -1 }, /timeoutMs must be a positive whole number/],
    ] as const) {
      const answer = await call(new URL("api/hook", base), { method: "POST", body: JSON.stringify(body) });
      assert.equal(answer.status, 400, answer.body);
      assert.match(JSON.parse(answer.body).error, error);
    }
  });
});

describe("inspect server: a hook call that hangs", () => {
  let dir = "";
  let inspector: RunningInspector;
  let base: URL;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-inspect-hook-hang-"));
    const provider = writeProviderScript(dir, "hook-hangs", "test/cli/fixtures/hook-misbehaving-provider.ts", {
      MISBEHAVIOUR: "veto-hangs",
    });
    inspector = await startInspector(provider, { dir });
    base = new URL(inspector.url);
  });
  after(async () => {
    assert.equal(await inspector?.stop(), 0);
    rmSync(dir, { recursive: true, force: true });
  });

  const payload = { plan: { turnId: "1", items: [] } };

  async function answered(id: string): Promise<HookCallView> {
    for (let i = 0; i < 200; i++) {
      const state = JSON.parse((await call(new URL("api/state", base))).body) as InspectorSnapshot;
      const hook = state.hooks.find((h) => h.id === id);
      if (hook?.answer) return hook;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`the hook call ${id} never answered`);
  }

  it("cancels it through the API, as the kernel cancels a hook call", async () => {
    const started = await call(new URL("api/hook", base), {
      method: "POST",
      body: JSON.stringify({ point: "plan-ready", mode: "veto", payload }),
    });
    const id = (JSON.parse(started.body) as HookCallView).id;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const running = JSON.parse((await call(new URL("api/state", base))).body) as InspectorSnapshot;
    assert.equal(running.hooks.find((h) => h.id === id)?.answer, undefined);
    assert.equal(
      (await call(new URL("api/cancel", base), { method: "POST", body: JSON.stringify({ id }) })).status,
      200,
    );
    const hook = await answered(id);
    assert.ok(hook.answer && !hook.answer.ok);
    assert.equal(hook.answer.status, "CANCELLED");
    assert.equal(hook.answer.cancelled, true);
  });

  it("ends it at its deadline with the HookError TIMEOUT", async () => {
    const started = await call(new URL("api/hook", base), {
      method: "POST",
      body: JSON.stringify({ point: "plan-ready", mode: "veto", payload, timeoutMs: 300 }),
    });
    const hook = await answered((JSON.parse(started.body) as HookCallView).id);
    assert.ok(hook.answer && !hook.answer.ok);
    assert.equal(hook.answer.status, "DEADLINE_EXCEEDED");
    assert.equal(hook.answer.cancelled, false);
    assert.match(
      hook.answer.line,
      /^DispatchHook failed \(gRPC status 4(, HookError TIMEOUT)?\): .*; the kernel fails closed: deny$/,
    );
    assert.ok((hook.durationMs ?? 0) >= 250, `ended after ${hook.durationMs} ms`);
  });
});
