/**
 * The message schema of each hook point's payload, for `create`, `fromJson` and `toBinary`: the
 * values behind `HookPayloads`' types. Apart from hook-subscriptions.ts so that importing
 * `harness-tool` does not boot hook.proto's descriptors; `harness-tool/testing` exports it.
 */
import {
  PlanReadyPayloadSchema,
  PostApplyPayloadSchema,
  PostModelResponsePayloadSchema,
  PostToolCallPayloadSchema,
  PreModelCallPayloadSchema,
  PreToolCallPayloadSchema,
  SessionEndPayloadSchema,
  SessionStartPayloadSchema,
} from "../generated/pluggableharness/hook/v1/hook_pb.js";

/** Each point's payload schema, keyed by the point's agent.hcl name. */
export const hookPayloadSchemas = {
  "session-start": SessionStartPayloadSchema,
  "pre-model-call": PreModelCallPayloadSchema,
  "post-model-response": PostModelResponsePayloadSchema,
  "pre-tool-call": PreToolCallPayloadSchema,
  "plan-ready": PlanReadyPayloadSchema,
  "post-tool-call": PostToolCallPayloadSchema,
  "post-apply": PostApplyPayloadSchema,
  "session-end": SessionEndPayloadSchema,
} as const;
