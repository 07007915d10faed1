/**
 * A sample payload for each hook point, as the kernel would fill it: every field the protocol says
 * MUST be set is set, so a subscriber sees a plausible firing. `harness-tool check` dispatches these
 * in every mode at every point; `--hook-payloads` replaces any of them.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Category } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import { Role } from "harness-tool/generated/pluggableharness/content/v1/content_pb.js";
import { HookPayloadSchema, type HookPayload } from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import { ApplyResult_ApplyOutcome, PlanDecision } from "harness-tool/generated/pluggableharness/plan/v1/plan_pb.js";
import { SessionStatus } from "harness-tool/generated/pluggableharness/session/v1/session_pb.js";
import { RiskClass, ToolKind } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { HookPointName } from "harness-tool";
import { hookPointTable } from "harness-tool/hook-points";

/** A sample HookPayload for `point`; paths in it are relative to `cwd`. */
export function sampleHookPayload(point: HookPointName, cwd: string): HookPayload {
  const payload = samples(cwd)[hookPointTable[point].variant];
  return create(HookPayloadSchema, { payload } as MessageInitShape<typeof HookPayloadSchema>);
}

function samples(cwd: string) {
  const session = { sessionId: "harness-tool-check", turnId: "1", workingDirectory: cwd };
  const call = {
    id: "call-1",
    toolName: "write_file",
    arguments: { path: "notes/a.txt", content: "one" },
    callContext: session,
  };
  const planItem = {
    id: "item-1",
    toolCallId: "call-1",
    provider: "filesystem",
    toolName: "write_file",
    input: { path: "notes/a.txt", content: "one" },
    decision: PlanDecision.ALLOW,
    decidedBy: "policy",
    kind: ToolKind.RESOURCE,
    risk: RiskClass.LOW,
    description: "write notes/a.txt",
  };
  const result = { payload: { bytes_written: 3 } };
  return {
    sessionStart: {
      case: "sessionStart",
      value: { sessionId: session.sessionId, profile: "default", workingDirectory: cwd },
    },
    preModelCall: {
      case: "preModelCall",
      value: {
        messages: [
          {
            id: "m1",
            role: Role.USER,
            content: [{ block: { case: "text", value: { text: "Write one to notes/a.txt." } } }],
          },
        ],
        model: { provider: "anthropic", id: "claude-sonnet" },
      },
    },
    postModelResponse: {
      case: "postModelResponse",
      value: {
        message: {
          id: "m2",
          role: Role.ASSISTANT,
          content: [{ block: { case: "text", value: { text: "Writing it." } } }],
        },
        model: {
          name: "anthropic",
          version: "1.0.0",
          source: "github.com/pluggableharness/model-anthropic",
          category: Category.MODEL,
          protocolVersion: 1,
        },
        usage: { inputTokens: 12n, outputTokens: 4n },
        costUsd: 0.0001,
      },
    },
    preToolCall: { case: "preToolCall", value: { call, planItem } },
    planReady: { case: "planReady", value: { plan: { turnId: "1", items: [planItem] } } },
    postToolCall: { case: "postToolCall", value: { call, outcome: { case: "result", value: result } } },
    postApply: {
      case: "postApply",
      value: {
        apply: {
          turnId: "1",
          items: [
            {
              planItemId: "item-1",
              toolCallId: "call-1",
              outcome: ApplyResult_ApplyOutcome.APPLIED,
              result: { case: "toolResult", value: result },
            },
          ],
        },
      },
    },
    sessionEnd: { case: "sessionEnd", value: { sessionId: session.sessionId, status: SessionStatus.COMPLETED } },
  } as const;
}
