// The DispatchHook response rules `check` and `hook` apply to what a subscriber answered, each shown
// to catch the answer the kernel rejects as INVALID_RESPONSE, and to pass the answers it accepts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clone, create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  DispatchHookRequestSchema,
  DispatchHookResponseSchema,
  HookDecision,
  HookMode,
  HookPayloadSchema,
  type HookPayload,
} from "../../generated/pluggableharness/hook/v1/hook_pb.js";
import { ToolErrorCategory, ToolErrorSchema } from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { checkHookResponse } from "../../cli/check/hook-response-shape.js";
import { sampleHookPayload } from "../../cli/check/hook-samples.js";

const request = (mode: HookMode, payload: HookPayload) => create(DispatchHookRequestSchema, { mode, payload });
const response = (outcome: NonNullable<MessageInitShape<typeof DispatchHookResponseSchema>["outcome"]>) =>
  create(DispatchHookResponseSchema, { outcome });
const rules = (
  mode: HookMode,
  payload: HookPayload,
  outcome: NonNullable<MessageInitShape<typeof DispatchHookResponseSchema>["outcome"]>,
) => checkHookResponse(request(mode, payload), response(outcome)).map((p) => `${p.rule}: ${p.message}`);

describe("hook response shape", () => {
  const plan = sampleHookPayload("plan-ready", "/work");
  const model = sampleHookPayload("pre-model-call", "/work");

  it("accepts an ObserveAck for observe, ALLOW or DENY for veto, the payload back for transform", () => {
    assert.deepEqual(rules(HookMode.OBSERVE, plan, { case: "observe", value: {} }), []);
    assert.deepEqual(rules(HookMode.VETO, plan, { case: "veto", value: { decision: HookDecision.ALLOW } }), []);
    assert.deepEqual(rules(HookMode.VETO, plan, { case: "veto", value: { decision: HookDecision.DENY } }), []);
    assert.deepEqual(
      rules(HookMode.TRANSFORM, plan, { case: "transform", value: { payload: clone(HookPayloadSchema, plan) } }),
      [],
    );
  });

  it("refuses an outcome of another mode, or none", () => {
    assert.deepEqual(rules(HookMode.OBSERVE, plan, { case: "veto", value: { decision: HookDecision.ALLOW } }), [
      "outcome-matches-mode: answered a observe request with veto, not observe",
    ]);
    assert.deepEqual(rules(HookMode.VETO, plan, { case: undefined }), [
      "outcome-matches-mode: answered a veto request with no outcome, not veto",
    ]);
  });

  it("refuses HOOK_DECISION_UNSPECIFIED", () => {
    assert.deepEqual(rules(HookMode.VETO, plan, { case: "veto", value: {} }), [
      "decision-set: decided UNSPECIFIED, which is neither ALLOW nor DENY",
    ]);
  });

  it("refuses a transform that returns another variant, or no payload", () => {
    assert.deepEqual(rules(HookMode.TRANSFORM, plan, { case: "transform", value: { payload: model } }), [
      "same-variant: returned a pre-model-call payload for a plan-ready request",
    ]);
    assert.deepEqual(rules(HookMode.TRANSFORM, plan, { case: "transform", value: {} }), [
      "same-variant: returned no payload for a plan-ready request",
    ]);
  });

  it("refuses any change where nothing may change, naming the field", () => {
    const changed = clone(HookPayloadSchema, plan);
    if (changed.payload.case === "planReady") changed.payload.value.plan!.turnId = "2";
    assert.deepEqual(rules(HookMode.TRANSFORM, plan, { case: "transform", value: { payload: changed } }), [
      "immutable-unchanged: changed plan; nothing at this point may change: the payload must come back identical",
    ]);
  });

  it("at pre-model-call lets messages change and refuses a change of model", () => {
    const redacted = clone(HookPayloadSchema, model);
    if (redacted.payload.case !== "preModelCall") throw new Error("the sample is a preModelCall");
    redacted.payload.value.messages = [];
    assert.deepEqual(rules(HookMode.TRANSFORM, model, { case: "transform", value: { payload: redacted } }), []);
    redacted.payload.value.model!.id = "another-model";
    assert.deepEqual(rules(HookMode.TRANSFORM, model, { case: "transform", value: { payload: redacted } }), [
      "immutable-unchanged: changed model; only messages may change",
    ]);
  });

  it("names the oneof of post-tool-call when the outcome changed", () => {
    const payload = sampleHookPayload("post-tool-call", "/work");
    const changed = clone(HookPayloadSchema, payload);
    if (changed.payload.case === "postToolCall")
      changed.payload.value.outcome = {
        case: "error",
        value: create(ToolErrorSchema, { category: ToolErrorCategory.TIMEOUT, message: "late" }),
      };
    assert.match(
      rules(HookMode.TRANSFORM, payload, { case: "transform", value: { payload: changed } })[0] ?? "",
      /^immutable-unchanged: changed outcome;/,
    );
  });
});
