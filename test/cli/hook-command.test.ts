// `harness-tool hook` through the real handshake against a hook subscriber
// (test/cli/fixtures/hook-misbehaving-provider.ts): each mode's answer shown, with the kernel Log
// lines its handler wrote, --json, --subscription, a mode or
// point the provider did not subscribe to, an answer the kernel rejects, a handler that throws,
// Ctrl-C cancelling a hanging veto, and a payload that is not the point's message.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { hookCommand, readHookPayload } from "../../cli/commands/hook-command.js";
import { writeProviderScript } from "../support/provider-script.js";
import { captureStream } from "../support/captured-stream.js";
import { cli } from "./support/run-cli.js";

describe("harness-tool hook", () => {
  let dir = "";
  const provider = (misbehaviour: string, env: Record<string, string> = {}) =>
    writeProviderScript(dir, `hook-${misbehaviour}`, "test/cli/fixtures/hook-misbehaving-provider.ts", {
      MISBEHAVIOUR: misbehaviour,
      ...env,
    });
  const file = (name: string, value: unknown) => {
    const written = path.join(dir, name);
    writeFileSync(written, JSON.stringify(value));
    return written;
  };
  const plan = (paths: string[]) => ({
    plan: { turnId: "1", items: paths.map((p, i) => ({ id: `i${i}`, toolName: "write_file", input: { path: p } })) },
  });
  let inside = "";
  let outside = "";
  let messages = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-hook-"));
    inside = file("inside.json", plan(["notes/a.txt"]));
    outside = file("outside.json", plan(["notes/a.txt", "/etc/passwd"]));
    messages = file("messages.json", {
      messages: [{ role: "ROLE_USER", content: [{ text: { text: "the secret is 42" } }] }],
      model: { provider: "anthropic", id: "claude" },
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("shows a veto's verdict, exit 0 for allow and for deny", async () => {
    const allowed = await cli(["hook", provider("none"), "plan-ready", "--mode", "veto", "--payload", inside]);
    assert.equal(allowed.code, 0, allowed.err);
    assert.equal(allowed.out, "veto: allow\n");
    // What the handler logged through the kernel, as the kernel's log holds it.
    assert.equal(allowed.err, 'kernel log [info]: judged a plan {"items":1}\n');
    const denied = await cli(["hook", provider("none"), "plan-ready", "--mode", "veto", "--payload", outside]);
    assert.equal(denied.code, 0, denied.err);
    assert.equal(denied.out, "veto: deny\n");
  });

  it("prints the DispatchHookResponse with --json", async () => {
    const run = await cli(["hook", provider("none"), "plan-ready", "--mode", "veto", "--payload", outside, "--json"]);
    assert.equal(run.code, 0, run.err);
    assert.deepEqual(JSON.parse(run.out), { veto: { decision: "HOOK_DECISION_DENY" } });
  });

  it("shows a transform's payload, and an observer's acknowledgement", async () => {
    const transformed = await cli([
      "hook",
      provider("none"),
      "pre-model-call",
      "--mode",
      "transform",
      "--payload",
      messages,
    ]);
    assert.equal(transformed.code, 0, transformed.err);
    assert.match(transformed.out, /^transform: the payload changed\n/);
    const shown = JSON.parse(transformed.out.slice(transformed.out.indexOf("\n") + 1)) as {
      messages: { content: { text: { text: string } }[] }[];
      model: unknown;
    };
    assert.equal(shown.messages[0]?.content[0]?.text.text, "the [hidden] is 42");
    assert.deepEqual(shown.model, { provider: "anthropic", id: "claude" });
    const identity = await cli(["hook", provider("none"), "plan-ready", "--mode", "transform", "--payload", inside]);
    assert.match(identity.out, /^transform: the payload unchanged\n/);
    const observed = await cli([
      "hook",
      provider("none"),
      "post-tool-call",
      "--mode",
      "observe",
      "--payload",
      file("call.json", { call: { id: "c1", toolName: "ping" } }),
    ]);
    assert.equal(observed.code, 0, observed.err);
    assert.equal(observed.out, "observe: acknowledged\n");
  });

  it("exits 1 on a mode the provider did not subscribe in, saying the refusal and what the kernel does", async () => {
    const run = await cli(["hook", provider("none"), "plan-ready", "--mode", "observe", "--payload", inside]);
    assert.equal(run.code, 1);
    assert.equal(run.out, "");
    assert.match(
      run.err,
      /^DispatchHook refused \(gRPC status 3, HookError INVALID_RESPONSE\): .*plan-ready.*observe.* \(fire what it subscribes to, or declare this\); the kernel logs it and the chain continues\n$/,
    );
  });

  it("notes a point the provider does not advertise", async () => {
    const run = await cli([
      "hook",
      provider("none"),
      "session-end",
      "--mode",
      "observe",
      "--payload",
      file("end.json", { sessionId: "s", status: "SESSION_STATUS_COMPLETED" }),
    ]);
    assert.equal(run.code, 1);
    assert.match(
      run.err,
      /^note: the provider does not advertise session-end in GetSchema, so the kernel refuses a hook\{\} block for it\n/,
    );
  });

  it("exits 1 on an answer the kernel rejects as INVALID_RESPONSE, and on a handler that throws", async () => {
    const unspecified = await cli([
      "hook",
      provider("veto-unspecified"),
      "plan-ready",
      "--mode",
      "veto",
      "--payload",
      inside,
    ]);
    assert.equal(unspecified.code, 1);
    assert.equal(unspecified.out, "veto: unspecified\n");
    assert.match(
      unspecified.err,
      /^the kernel rejects this answer as INVALID_RESPONSE \(the kernel fails closed: deny\): decided UNSPECIFIED, which is neither ALLOW nor DENY\nkernel log \[info\]: judged a plan \{"items":1\}\n$/,
    );
    const thrown = await cli(["hook", provider("veto-throws"), "plan-ready", "--mode", "veto", "--payload", inside]);
    assert.equal(thrown.code, 1);
    assert.match(
      thrown.err,
      /^DispatchHook failed \(gRPC status \d+, HookError VETO_FAILED\): .*the policy store is unreachable.*; the kernel fails closed: deny\n$/,
    );
  });

  it("cancels a hanging veto on Ctrl-C: exit 130", async () => {
    const started = path.join(dir, "veto-started");
    const out = captureStream();
    const err = captureStream();
    const interrupt = new AbortController();
    const running = hookCommand(
      { command: provider("veto-hangs", { HOOK_STARTED_FILE: started }), args: [] },
      {
        point: "plan-ready",
        mode: "veto",
        payload: readHookPayload(inside, "plan-ready"),
        timeoutMs: 600_000,
        json: false,
        out: out.stream,
        err: err.stream,
        interrupt: interrupt.signal,
      },
    );
    while (!existsSync(started)) await sleep(20);
    interrupt.abort();
    assert.equal(await running, 130, err.text());
    assert.equal(err.text(), "cancelled\n");
    assert.equal(out.text(), "");
  });

  it("refuses a payload that is not the point's message, naming it, before launching anything", async () => {
    // /bin/false would fail the handshake: the payload is refused before it is ever started.
    const run = await cli([
      "hook",
      "/bin/false",
      "plan-ready",
      "--mode",
      "veto",
      "--payload",
      file("wrong.json", { plan: { turn: "1" } }),
    ]);
    assert.equal(run.code, 2);
    assert.match(
      run.err,
      /^harness-tool hook: --payload \S+wrong\.json is not a PlanReadyPayload \(protobuf JSON\): .*"turn".*\n$/,
    );
  });
});
