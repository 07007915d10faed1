// HookSubscriberService served on the provider's own go-plugin connection, through
// harness-tool/testing's launch() (the TypeScript host): GetSchema advertises the declared points,
// the answers arrive as the kernel reads them, a failure's HookError travels in the status details,
// the call's gRPC deadline reaches the handler, and a secret never leaves in a message.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HookPoint } from "../../../generated/pluggableharness/common/v1/common_pb.js";
import { HookDecision, HookErrorCategory, HookMode } from "../../../generated/pluggableharness/hook/v1/hook_pb.js";
import { HookDispatchError, launch, type LaunchedProvider } from "../../../runtime/testing/index.js";
import { typeScriptProvider } from "../interop/providers.js";

const hookProvider = typeScriptProvider("hooks", "test/runtime/kernel/fixtures/hook-provider.ts");

async function rejection(promise: Promise<unknown>): Promise<HookDispatchError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof HookDispatchError, `expected a HookDispatchError, got ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

describe("HookSubscriberService through launch()", () => {
  let p: LaunchedProvider;
  before(async () => {
    p = await launch(hookProvider.command, {
      args: hookProvider.args,
      cwd: hookProvider.cwd,
      handshakeTimeoutMs: 30_000,
    });
    await p.configure({ secret: "s3cr3t-hook-value" });
  });
  after(() => p.kill());

  it("GetSchema advertises exactly the declared points, in wire order", async () => {
    const schema = await p.getSchema();
    assert.deepEqual(schema.supportedHookPoints, [
      HookPoint.SESSION_START,
      HookPoint.PRE_MODEL_CALL,
      HookPoint.POST_MODEL_RESPONSE,
      HookPoint.PRE_TOOL_CALL,
      HookPoint.PLAN_READY,
      HookPoint.POST_TOOL_CALL,
      HookPoint.POST_APPLY,
      HookPoint.SESSION_END,
    ]);
  });

  it("a veto, an observer and a transform answer on the same connection; Log from the handler reaches the kernel", async () => {
    const denied = await p.dispatchHook("plan-ready", "veto", { plan: { turnId: "t", items: [{ toolName: "rm" }] } });
    assert.deepEqual(denied.outcome, { case: "veto", value: denied.outcome.value });
    assert.equal(denied.outcome.case === "veto" && denied.outcome.value.decision, HookDecision.DENY);
    const observed = await p.dispatchHook("session-start", "observe", {
      sessionId: "s-1",
      profile: "dev",
      workingDirectory: "/w",
    });
    assert.equal(observed.outcome.case, "observe");
    const transformed = await p.dispatchHook("pre-model-call", "transform", {
      messages: [{ content: [{ block: { case: "text", value: { text: "key sk-abc123 here" } } }] }],
      model: { provider: "p", id: "m" },
    });
    const payload = transformed.outcome.case === "transform" ? transformed.outcome.value.payload?.payload : undefined;
    assert.equal(payload?.case, "preModelCall");
    const text = payload?.case === "preModelCall" ? payload.value.messages[0]?.content[0]?.block : undefined;
    assert.equal(text?.case === "text" && text.value.text, "key [key] here");
    assert.equal(payload?.case === "preModelCall" && payload.value.model?.id, "m");
    await waitFor(() => p.kernel.calls.log.some((l) => l.entry?.message === "hook session-start observe"));
    const logs = p.kernel.calls.log.filter((l) => l.entry?.message === "hook session-start observe");
    assert.equal(logs.length, 1);
    assert.equal(logs[0]?.sessionId, "s-1");
  });

  it("an undeclared mode: INVALID_ARGUMENT with a HookError of category INVALID_RESPONSE", async () => {
    const error = await rejection(p.dispatchHook("post-tool-call", "veto", {}));
    assert.equal(error.code, 3);
    assert.equal(error.hookError?.category, HookErrorCategory.INVALID_RESPONSE);
    assert.equal(error.hookError?.mode, HookMode.VETO);
    assert.equal(error.hookError?.point, HookPoint.POST_TOOL_CALL);
    assert.equal(error.hookError?.subscriber?.name, "hooks");
    assert.match(error.details, /subscribes to post-tool-call in observe, transform mode, not veto/);
  });

  it("a thrown veto: INTERNAL, VETO_FAILED, the configured secret redacted from both messages", async () => {
    const error = await rejection(p.dispatchHook("plan-ready", "veto", { plan: { turnId: "throw" } }));
    assert.equal(error.code, 13);
    assert.equal(error.hookError?.category, HookErrorCategory.VETO_FAILED);
    assert.doesNotMatch(`${error.details} ${error.hookError?.message}`, /s3cr3t-hook-value/);
    assert.match(error.details, /rejected credentials/);
  });

  it("a veto that hangs past the call's deadline: DEADLINE_EXCEEDED, and the provider goes on serving", async () => {
    const error = await rejection(
      p.dispatchHook("plan-ready", "veto", { plan: { turnId: "hang" } }, { timeoutMs: 300 }),
    );
    assert.equal(error.code, 4);
    const after = await p.dispatchHook("plan-ready", "veto", { plan: { turnId: "t" } });
    assert.equal(after.outcome.case === "veto" && after.outcome.value.decision, HookDecision.ALLOW);
  });

  it("a veto cancelled by the host: the handler's signal aborts (it logs so), the host sees CANCELLED", async () => {
    const cancel = new AbortController();
    const call = p.dispatchHook("plan-ready", "veto", { plan: { turnId: "cancel" } }, { signal: cancel.signal });
    await waitFor(() => p.kernel.calls.log.some((l) => l.entry?.message === "plan-ready veto waiting"));
    cancel.abort();
    const error = await rejection(call);
    assert.equal(error.code, 1);
    await waitFor(() => p.kernel.calls.log.some((l) => l.entry?.message === "plan-ready veto cancelled"));
    assert.ok(!p.stderr.some((line) => /error/i.test(line.level)), "a cancel is not logged as a failure");
  });
});

/** Waits for `condition`, checking on every turn of the event loop (no wall-clock bound: the test's own timeout is the bound). */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
