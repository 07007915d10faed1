// The hook declaration: what defineProvider and serve() refuse, and the advertised points derived from it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HookPoint } from "../../../../generated/pluggableharness/common/v1/common_pb.js";
import { defineProvider } from "../../../../runtime/provider/define-provider.js";
import { HookMode, HookPayloadSchema } from "../../../../generated/pluggableharness/hook/v1/hook_pb.js";
import { hookPayloadSchemas } from "../../../../runtime/provider/hook-payload-schemas.js";
import {
  hookDeclarationProblems,
  hookModeTable,
  hookPointNames,
  hookPointTable,
  supportedHookPointsOf,
  type HookTable,
} from "../../../../runtime/provider/hook-subscriptions.js";
import { checkProvider, ProviderDefinitionError } from "../../../../runtime/service/calls/check-provider.js";
import { createToolService } from "../../../../runtime/service/calls/tool-service.js";

const observe = async () => {};
const veto = async () => "allow" as const;

describe("the hook point and mode tables", () => {
  it("the modes' numbers are hook.v1.HookMode's (written out so that start-up boots no hook descriptor)", () => {
    assert.deepEqual(hookModeTable, { observe: HookMode.OBSERVE, transform: HookMode.TRANSFORM, veto: HookMode.VETO });
  });

  it("each point's variant and payload schema are the HookPayload oneof's, in field order", () => {
    const oneof = HookPayloadSchema.oneofs[0];
    assert.ok(oneof);
    assert.deepEqual(
      hookPointNames.map((name) => [hookPointTable[name].variant, hookPayloadSchemas[name].typeName]),
      oneof.fields.map((field) => [field.localName, field.message?.typeName]),
    );
    // HookPoint's numbers follow the same order (1 … 8).
    assert.deepEqual(
      hookPointNames.map((name) => hookPointTable[name].point),
      oneof.fields.map((field) => field.number),
    );
  });
});

describe("hook declaration", () => {
  it("accepts every point with its legal modes and derives the advertised points in wire order", () => {
    const hooks: HookTable = {
      "session-end": { observe },
      "plan-ready": { veto, transform: "identity" },
      "pre-model-call": { transform: async () => ({ messages: [] }) },
    };
    assert.deepEqual(hookDeclarationProblems(hooks), []);
    assert.deepEqual(supportedHookPointsOf(hooks), [
      HookPoint.PRE_MODEL_CALL,
      HookPoint.PLAN_READY,
      HookPoint.SESSION_END,
    ]);
    assert.deepEqual(supportedHookPointsOf(undefined), []);
  });

  it("names each inconsistency with its point, its fix and its rule", () => {
    const problems = hookDeclarationProblems({
      "context-assemble": { observe },
      "plan-ready": {},
      "post-apply": { block: observe },
      "pre-tool-call": { transform: async () => ({}) },
      "pre-model-call": { transform: "identity" },
      "session-start": { observe: "yes" },
    });
    assert.deepEqual(problems, [
      "hooks.context-assemble: not a hook point (one of session-start, pre-model-call, post-model-response, pre-tool-call, plan-ready, post-tool-call, post-apply, session-end) [hook-point-known]",
      "hooks.plan-ready: no mode: give observe, transform or veto, or remove the point [hook-point-handled]",
      "hooks.post-apply.block: not a mode (observe, transform or veto) [hook-mode-known]",
      'hooks.pre-tool-call.transform: nothing at pre-tool-call may change: write "identity" [hook-transform-identity]',
      "hooks.pre-model-call.transform: must be an async function returning the mutable fields [hook-handler-function]",
      "hooks.session-start.observe: must be an async function (payload, context) => ... [hook-handler-function]",
    ]);
    assert.deepEqual(hookDeclarationProblems([]), ["hooks: must be an object keyed by hook point [hooks-object]"]);
  });

  it("defineProvider throws on an inconsistent declaration, naming the provider", () => {
    assert.throws(
      () =>
        defineProvider(
          { name: "p", version: "1", source: "github.com/acme/s", tools: {}, hooks: { "plan-ready": {} as never } },
          {},
        ),
      /provider "p": hooks\.plan-ready: no mode/,
    );
  });

  it("a generated provider's claimed points must match its hooks, both ways", () => {
    const base = { name: "gen", version: "1", source: "github.com/acme/s", tools: {} };
    assert.throws(
      () =>
        defineProvider(
          {
            ...base,
            supportedHookPoints: [HookPoint.PLAN_READY, HookPoint.POST_APPLY],
            hooks: { "plan-ready": { veto } },
          },
          {},
        ),
      /post-apply is in supported_hook_points but has no handler: add hooks\["post-apply"\]/,
    );
    assert.throws(
      () => defineProvider({ ...base, supportedHookPoints: [], hooks: { "plan-ready": { veto } } }, {}),
      /hooks\.plan-ready: not in the proto's supported_hook_points/,
    );
    const ok = defineProvider(
      { ...base, supportedHookPoints: [HookPoint.PLAN_READY], hooks: { "plan-ready": { veto } } },
      {},
    );
    assert.deepEqual(supportedHookPointsOf(ok.hooks), [HookPoint.PLAN_READY]);
  });

  it("serve()'s start-up check refuses a hand-built definition whose hooks are inconsistent", () => {
    const provider = defineProvider<Record<string, never>, unknown>(
      { name: "hand", version: "1", source: "github.com/acme/s", tools: {} },
      {},
    );
    const check = checkProvider({ ...provider, hooks: { "plan-ready": { veto: "allow" } } as never });
    assert.deepEqual(check.errors, [
      "provider: hooks.plan-ready.veto: must be an async function (payload, context) => ... [hook-handler-function]",
    ]);
    // createToolService (what serve() runs before the handshake) refuses it with the same line.
    assert.throws(
      () =>
        createToolService(
          { ...provider, hooks: { "pre-tool-call": { transform: async () => ({}) } } as never },
          { stderr: () => {} },
        ),
      (error: unknown) =>
        error instanceof ProviderDefinitionError &&
        error.problems.includes(
          'provider: hooks.pre-tool-call.transform: nothing at pre-tool-call may change: write "identity" [hook-transform-identity]',
        ),
    );
  });
});
