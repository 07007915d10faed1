// The HookSubscriberService semantics in process (runtime/service/hooks): requests checked against
// the declaration, answers built from the request's bytes, failures as statuses with a HookError,
// the deadline, the kernel's cancel and shutdown through the handler's signal, Log and Emit from a
// handler, secrets redacted from every message.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Role } from "../../../../generated/pluggableharness/content/v1/content_pb.js";
import {
  DispatchHookRequestSchema,
  DispatchHookResponseSchema,
  HookDecision,
  HookErrorCategory,
  HookMode,
  HookPayloadSchema,
  type DispatchHookResponse,
  type PreModelCallPayload,
} from "../../../../generated/pluggableharness/hook/v1/hook_pb.js";
import { HookPoint } from "../../../../generated/pluggableharness/common/v1/common_pb.js";
import { EventKind } from "../../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { ConfigureRequestSchema } from "../../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { defineConfig } from "../../../../runtime/provider/define-config.js";
import { defineProvider } from "../../../../runtime/provider/define-provider.js";
import type { HookContext, HookSubscriptions } from "../../../../runtime/provider/hook-subscriptions.js";
import { createToolService } from "../../../../runtime/service/calls/tool-service.js";
import { createHookService } from "../../../../runtime/service/hooks/hook-service.js";
import type {
  HookAnswer,
  HookCallControl,
  HookServiceCore,
} from "../../../../runtime/service/hooks/hook-service-core.js";
import { fakeKernel, type FakeKernel } from "../support/fake-kernel.js";

type Init = MessageInitShape<typeof DispatchHookRequestSchema>;

/** A provider with `hooks`, its tool and hook services, and a fake kernel. */
function serviceWith(hooks: HookSubscriptions<{ token?: string }>, options: { config?: boolean } = {}) {
  const kernel: FakeKernel = fakeKernel();
  const stderr: string[] = [];
  const provider = defineProvider(
    {
      name: "hooked",
      version: "1.2.3",
      source: "github.com/acme/hooked",
      tools: {},
      hooks,
      ...(options.config
        ? {
            config: defineConfig<{ token?: string }>([
              { name: "token", type: "string", sensitive: true, required: true },
            ]),
          }
        : {}),
    },
    {},
  );
  const tools = createToolService(provider, { kernel, stderr: (line) => stderr.push(line), settleGraceMs: 50 });
  const hooksService = createHookService(tools.serviceScope) as HookServiceCore;
  assert.ok(hooksService, "a provider with hooks has a hook service");
  return { tools, hooks: hooksService, kernel, stderr };
}

function requestBytes(init: Init): Uint8Array {
  return toBinary(DispatchHookRequestSchema, create(DispatchHookRequestSchema, init));
}

const never = new AbortController().signal;

async function dispatch(
  core: HookServiceCore,
  request: Init | Uint8Array,
  control: Partial<HookCallControl> = {},
): Promise<HookAnswer> {
  return core.dispatchHook(request instanceof Uint8Array ? request : requestBytes(request), {
    cancelled: never,
    ...control,
  });
}

function responseOf(answer: HookAnswer): DispatchHookResponse {
  assert.ok(answer.ok, `expected a response, got status ${answer.ok ? "" : `${answer.code}: ${answer.message}`}`);
  return fromBinary(DispatchHookResponseSchema, answer.response);
}

function failureOf(answer: HookAnswer) {
  assert.ok(!answer.ok, "expected a failure");
  return answer;
}

const planReady: Init = {
  payload: {
    payload: { case: "planReady", value: { plan: { turnId: "t1", items: [{ id: "i1", toolName: "write_file" }] } } },
  },
  mode: HookMode.VETO,
};
const preModelCall = (mode: HookMode): Init => ({
  payload: {
    payload: {
      case: "preModelCall",
      value: {
        messages: [{ role: Role.USER, content: [{ block: { case: "text", value: { text: "hello sk-1234" } } }] }],
        model: { provider: "anthropic", id: "opus" },
      },
    },
  },
  mode,
});

describe("DispatchHook: answers by mode", () => {
  it("observe acknowledges, after the handler saw the typed payload and the call's info", async () => {
    let seen: { turnId?: string; info?: HookContext<unknown>["hook"] } = {};
    const { hooks } = serviceWith({
      "plan-ready": {
        observe: async (payload, ctx) => {
          seen = { turnId: payload.plan?.turnId ?? "", info: ctx.hook };
        },
      },
    });
    const deadline = new Date(Date.now() + 60_000);
    const response = responseOf(
      await dispatch(hooks, { ...planReady, mode: HookMode.OBSERVE, subscriptionId: "audit" }, { deadline }),
    );
    assert.equal(response.outcome.case, "observe");
    assert.equal(seen.turnId, "t1");
    assert.deepEqual(seen.info, {
      point: "plan-ready",
      mode: "observe",
      subscriptionId: "audit",
      deadline,
      sessionId: "",
    });
  });

  it("veto answers the verdict the handler returned", async () => {
    const { hooks } = serviceWith({
      "plan-ready": {
        veto: async (payload) => (payload.plan?.items.some((i) => i.toolName === "write_file") ? "deny" : "allow"),
      },
    });
    const denied = responseOf(await dispatch(hooks, planReady));
    assert.deepEqual(denied.outcome.case === "veto" && denied.outcome.value.decision, HookDecision.DENY);
    const allowed = responseOf(
      await dispatch(hooks, {
        payload: { payload: { case: "planReady", value: { plan: { items: [] } } } },
        mode: HookMode.VETO,
      }),
    );
    assert.deepEqual(allowed.outcome.case === "veto" && allowed.outcome.value.decision, HookDecision.ALLOW);
  });

  it("a veto handler that returns anything but allow or deny fails the call (VETO_FAILED), never an answer", async () => {
    const { hooks } = serviceWith({ "plan-ready": { veto: (async () => true) as never } });
    const failure = failureOf(await dispatch(hooks, planReady));
    assert.equal(failure.code, 13);
    assert.equal(failure.hookError?.category, HookErrorCategory.VETO_FAILED);
    assert.match(failure.message, /returned a boolean, not "allow" or "deny"/);
  });

  it("Log and Emit from a handler reach the kernel, with the session id a session payload names", async () => {
    const { hooks, kernel } = serviceWith({
      "session-start": {
        observe: async (payload, ctx) => {
          ctx.log.info("session started", { profile: payload.profile });
          await ctx.kernel.emit(EventKind.TOOL_RESULT, new TextEncoder().encode("seen"), "1");
          await ctx.kernel.emitEvent({ kind: "memory_write", payload: { recordId: "r-1" } });
        },
      },
    });
    responseOf(
      await dispatch(hooks, {
        payload: { payload: { case: "sessionStart", value: { sessionId: "s-9", profile: "dev" } } },
        mode: HookMode.OBSERVE,
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(kernel.logs.length, 1);
    assert.equal(kernel.logs[0]?.sessionId, "s-9");
    assert.equal(kernel.logs[0]?.entry?.logger, "hooked.hook.session-start");
    assert.equal(kernel.emits[0]?.sessionId, "s-9");
    assert.deepEqual(
      kernel.emits.map((e) => [e.sessionId, e.kind, e.schemaVersion]),
      [
        ["s-9", EventKind.TOOL_RESULT, "1"],
        ["s-9", EventKind.MEMORY_WRITE, "1"],
      ],
      "a hook emits event.v1 messages too",
    );
  });
});

describe("DispatchHook: transform answers rebuilt from the request's bytes", () => {
  /** A DispatchHookRequest for pre-model-call with an unknown field (99) inside the payload and after the model. */
  function preModelCallWithUnknown(): Uint8Array {
    const payload = toBinary(
      HookPayloadSchema,
      create(HookPayloadSchema, preModelCall(HookMode.TRANSFORM).payload as never),
    );
    const inner = payload.subarray(2); // tag(2) and a one-byte length: the test message is short
    assert.equal(payload[1], inner.byteLength, "the payload fits a one-byte length");
    const unknown = new BinaryWriter().tag(99, WireType.Varint).uint32(7).finish();
    const innerWithUnknown = Buffer.concat([inner, unknown]);
    const hookPayload = new BinaryWriter().tag(2, WireType.LengthDelimited).bytes(innerWithUnknown).finish();
    return new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .bytes(hookPayload)
      .tag(2, WireType.Varint)
      .int32(HookMode.TRANSFORM)
      .finish();
  }

  function transformedPayloadBytes(answer: HookAnswer): Uint8Array {
    assert.ok(answer.ok);
    // DispatchHookResponse.transform (2) → TransformResult.payload (1): two length-delimited layers.
    const response = fromBinary(DispatchHookResponseSchema, answer.response);
    assert.equal(response.outcome.case, "transform");
    return toBinary(
      HookPayloadSchema,
      response.outcome.case === "transform"
        ? (response.outcome.value.payload ?? create(HookPayloadSchema))
        : create(HookPayloadSchema),
    );
  }

  it("pre-model-call: only the messages change; the model and an unknown field stay byte for byte", async () => {
    const { hooks } = serviceWith({
      "pre-model-call": {
        // As JavaScript may write it: a spread message (it keeps $typeName) with plain blocks inside,
        // which the types refuse and the runtime still takes.
        transform: (async (payload: PreModelCallPayload) => ({
          messages: payload.messages.map((m) => ({
            ...m,
            content: [{ block: { case: "text" as const, value: { text: "hello [redacted]" } } }],
          })),
        })) as never,
      },
    });
    const request = preModelCallWithUnknown();
    const answer = await dispatch(hooks, request);
    const response = responseOf(answer);
    assert.equal(response.outcome.case, "transform");
    const payload = response.outcome.case === "transform" ? response.outcome.value.payload?.payload : undefined;
    assert.equal(payload?.case, "preModelCall");
    const value = payload?.case === "preModelCall" ? payload.value : undefined;
    assert.equal(
      value?.messages[0]?.content[0]?.block.case === "text" && value.messages[0].content[0].block.value.text,
      "hello [redacted]",
    );
    assert.deepEqual([value?.model?.provider, value?.model?.id], ["anthropic", "opus"]);
    // The unknown field and the model's bytes are in the answer exactly as they were in the request.
    const raw = Buffer.from(answer.ok ? answer.response : new Uint8Array());
    const unknown = Buffer.from(new BinaryWriter().tag(99, WireType.Varint).uint32(7).finish());
    assert.ok(raw.includes(unknown), "the unknown field survives");
    const model = Buffer.from(
      toBinary(
        HookPayloadSchema,
        create(HookPayloadSchema, {
          payload: { case: "preModelCall", value: { model: { provider: "anthropic", id: "opus" } } },
        }),
      ).subarray(2),
    );
    assert.ok(raw.includes(model), "the model's bytes survive");
  });

  it("pre-model-call: a transform that returns the same messages answers the request's payload byte for byte", async () => {
    const { hooks } = serviceWith({
      "pre-model-call": { transform: async (payload) => ({ messages: payload.messages }) },
    });
    const request = requestBytes(preModelCall(HookMode.TRANSFORM));
    const answer = await dispatch(hooks, request);
    const sent = toBinary(
      HookPayloadSchema,
      create(HookPayloadSchema, preModelCall(HookMode.TRANSFORM).payload as never),
    );
    assert.deepEqual(transformedPayloadBytes(answer), sent);
  });

  it('"identity" answers the payload received, byte for byte, unknown fields included', async () => {
    const { hooks } = serviceWith({ "session-end": { transform: "identity" } });
    const payload = toBinary(
      HookPayloadSchema,
      create(HookPayloadSchema, { payload: { case: "sessionEnd", value: { sessionId: "s1", status: 2 } } }),
    );
    // The unknown field first: a runtime that decoded and re-encoded the payload would move it last.
    const withUnknown = Buffer.concat([
      new BinaryWriter().tag(77, WireType.LengthDelimited).string("kept").finish(),
      payload,
    ]);
    const request = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .bytes(withUnknown)
      .tag(2, WireType.Varint)
      .int32(HookMode.TRANSFORM)
      .finish();
    const answer = await dispatch(hooks, request);
    assert.ok(answer.ok);
    const expected = new BinaryWriter()
      .tag(2, WireType.LengthDelimited)
      .bytes(new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(withUnknown).finish())
      .finish();
    assert.deepEqual(Buffer.from(answer.response), Buffer.from(expected));
  });

  it("a transform's returned messages leave through the response exit: a configured secret is redacted", async () => {
    const { tools, hooks } = serviceWith(
      {
        "pre-model-call": {
          transform: async (_payload, ctx) => ({
            messages: [{ content: [{ block: { case: "text", value: { text: `token ${ctx.config.token}` } } }] }],
          }),
        },
      },
      { config: true },
    );
    await tools.configure(create(ConfigureRequestSchema, { config: { token: "hunter2-secret-token" } }));
    const response = responseOf(await dispatch(hooks, preModelCall(HookMode.TRANSFORM)));
    const payload = response.outcome.case === "transform" ? response.outcome.value.payload?.payload : undefined;
    const block = payload?.case === "preModelCall" ? payload.value.messages[0]?.content[0]?.block : undefined;
    assert.ok(block?.case === "text");
    assert.doesNotMatch(block.value.text, /hunter2/);
    assert.match(block.value.text, /^token \[REDACTED/);
  });

  it("a transform handler that returns no messages list fails (TRANSFORM_FAILED)", async () => {
    const { hooks } = serviceWith({ "pre-model-call": { transform: (async () => ({ text: "x" })) as never } });
    const failure = failureOf(await dispatch(hooks, preModelCall(HookMode.TRANSFORM)));
    assert.equal(failure.hookError?.category, HookErrorCategory.TRANSFORM_FAILED);
    assert.match(failure.message, /returned an object, not \{ messages: \[\.\.\.\] \}/);
  });
});

describe("DispatchHook: requests that do not fit the declaration are refused before a handler runs", () => {
  const cases: { name: string; request: Init | Uint8Array; message: RegExp; point?: HookPoint; mode?: HookMode }[] = [
    {
      name: "an undeclared mode",
      request: { ...planReady, mode: HookMode.TRANSFORM },
      message: /subscribes to plan-ready in observe, veto mode, not transform/,
      point: HookPoint.PLAN_READY,
      mode: HookMode.TRANSFORM,
    },
    {
      name: "a variant of a point it does not subscribe to",
      request: { payload: { payload: { case: "postApply", value: {} } }, mode: HookMode.VETO },
      message: /does not subscribe to post-apply \(it subscribes to plan-ready\)/,
      point: HookPoint.POST_APPLY,
      mode: HookMode.VETO,
    },
    { name: "no payload", request: { mode: HookMode.VETO }, message: /carries no hook payload/, mode: HookMode.VETO },
    {
      name: "the mode unset",
      request: { ...planReady, mode: HookMode.UNSPECIFIED },
      message: /mode is unset/,
      point: HookPoint.PLAN_READY,
    },
    { name: "bytes that do not decode", request: new Uint8Array([0x0a, 0x05, 0x01]), message: /does not decode/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      let called = 0;
      const { hooks } = serviceWith({
        "plan-ready": {
          observe: async () => {
            called++;
          },
          veto: async () => {
            called++;
            return "allow";
          },
        },
      });
      const failure = failureOf(await dispatch(hooks, c.request));
      assert.equal(failure.code, 3, "INVALID_ARGUMENT");
      assert.match(failure.message, c.message);
      assert.equal(failure.hookError?.category, HookErrorCategory.INVALID_RESPONSE);
      assert.equal(failure.hookError?.point ?? 0, c.point ?? 0);
      assert.equal(failure.hookError?.mode ?? 0, c.mode ?? 0);
      assert.deepEqual(
        [
          failure.hookError?.subscriber?.name,
          failure.hookError?.subscriber?.version,
          failure.hookError?.subscriber?.source,
        ],
        ["hooked", "1.2.3", "github.com/acme/hooked"],
      );
      assert.equal(called, 0, "no handler ran");
    });
  }
});

describe("DispatchHook: failures, deadline, cancel, shutdown", () => {
  it("a thrown error is INTERNAL with the mode's category, its message with the configured secrets redacted and machine paths reduced", async () => {
    const { tools, hooks } = serviceWith(
      {
        "plan-ready": {
          veto: async (_payload, ctx) => {
            throw new Error(`cannot reach the policy server with ${ctx.config.token}`);
          },
        },
        "post-apply": {
          observe: async (_payload, ctx) => {
            throw new Error(
              `audit sink refused ${ctx.config.token} at /srv/app/node_modules/audit-sink/lib/send.js:12:3`,
            );
          },
        },
      },
      { config: true },
    );
    await tools.configure(create(ConfigureRequestSchema, { config: { token: "hunter2-secret-token" } }));
    const veto = failureOf(await dispatch(hooks, planReady));
    assert.equal(veto.code, 13);
    assert.equal(veto.hookError?.category, HookErrorCategory.VETO_FAILED);
    assert.doesNotMatch(`${veto.message} ${veto.hookError?.message}`, /hunter2/);
    assert.match(veto.message, /the veto handler at plan-ready failed: cannot reach the policy server with \[REDACTED/);
    const observe = failureOf(
      await dispatch(hooks, { payload: { payload: { case: "postApply", value: {} } }, mode: HookMode.OBSERVE }),
    );
    assert.equal(observe.hookError?.category, HookErrorCategory.UNKNOWN);
    assert.doesNotMatch(observe.message, /hunter2/);
    // The author's machine paths are reduced, as in a tool's unknown error (docs/runtime.md#errors).
    assert.match(observe.message, / at node_modules\/audit-sink\/lib\/send\.js:12:3$/);
  });

  it("before Configure, a provider whose config has required attributes fails the call (FAILED_PRECONDITION)", async () => {
    const { hooks } = serviceWith({ "plan-ready": { veto: async () => "allow" } }, { config: true });
    const failure = failureOf(await dispatch(hooks, planReady));
    assert.equal(failure.code, 9);
    assert.equal(failure.hookError?.category, HookErrorCategory.VETO_FAILED);
  });

  it("past the deadline: DEADLINE_EXCEEDED (TIMEOUT) at once, even when the handler ignores its signal, which aborts", async () => {
    let aborted: Promise<void> | undefined;
    const { hooks } = serviceWith({
      "plan-ready": {
        veto: (_payload, ctx) => {
          aborted = new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
          return new Promise(() => {}); // never settles
        },
      },
    });
    const failure = failureOf(await dispatch(hooks, planReady, { deadline: new Date(Date.now() + 5) }));
    assert.equal(failure.code, 4);
    assert.equal(failure.hookError?.category, HookErrorCategory.TIMEOUT);
    await aborted;
  });

  it("a deadline past setTimeout's limit (40 days) lets a slow handler answer", async () => {
    const { hooks } = serviceWith({
      "plan-ready": { veto: () => new Promise<"allow">((resolve) => setTimeout(() => resolve("allow"), 30)) },
    });
    const response = responseOf(
      await dispatch(hooks, planReady, { deadline: new Date(Date.now() + 40 * 24 * 3600 * 1000) }),
    );
    assert.deepEqual(response.outcome.case === "veto" && response.outcome.value.decision, HookDecision.ALLOW);
  });

  it("the kernel's cancel: CANCELLED with no HookError, the handler's signal aborted, nothing on stderr", async () => {
    const cancel = new AbortController();
    let reason: unknown;
    const { hooks, stderr } = serviceWith({
      "plan-ready": {
        veto: (_payload, ctx) =>
          new Promise((_, reject) => {
            ctx.signal.addEventListener("abort", () => {
              reason = ctx.signal.reason;
              reject(ctx.signal.reason);
            });
            setImmediate(() => cancel.abort());
          }),
      },
    });
    const failure = failureOf(await dispatch(hooks, planReady, { cancelled: cancel.signal }));
    assert.equal(failure.code, 1);
    assert.equal(failure.hookError, undefined);
    assert.ok(reason instanceof Error);
    assert.deepEqual(stderr, []);
  });

  it("calls run concurrently: an observer answers while a veto hangs; shutdown ends the hanging one (UNAVAILABLE)", async () => {
    let release: (() => void) | undefined;
    const { tools, hooks } = serviceWith({
      "plan-ready": { veto: () => new Promise(() => {}) },
      "post-tool-call": {
        observe: async () => {
          release?.();
        },
      },
    });
    const hanging = dispatch(hooks, planReady);
    let observed: Promise<HookAnswer> | undefined;
    await new Promise<void>((resolve) => {
      release = resolve;
      observed = dispatch(hooks, { payload: { payload: { case: "postToolCall", value: {} } }, mode: HookMode.OBSERVE });
    });
    responseOf(await (observed as Promise<HookAnswer>));
    assert.equal(tools.inFlight(), 1, "the hanging veto counts as in flight");
    await tools.shutdown(30);
    const failure = failureOf(await hanging);
    assert.equal(failure.code, 14);
    assert.equal(tools.inFlight(), 0);
    const after = failureOf(await dispatch(hooks, planReady));
    assert.equal(after.code, 14, "no new hook call after shutdown");
  });

  it("a provider without hooks has no hook service", () => {
    const provider = defineProvider({ name: "plain", version: "1", source: "github.com/acme/s", tools: {} }, {});
    assert.equal(createHookService(createToolService(provider, { stderr: () => {} }).serviceScope), undefined);
  });
});
