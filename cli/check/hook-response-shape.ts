/**
 * The DispatchHook response rules, checked on what a subscriber actually answered (hook-dispatch.md,
 * "Dispatch modes → response shapes", "Per-point transform-mutable fields", "INVALID_RESPONSE
 * handling"). A response that breaks one is what the kernel classifies as
 * HOOK_ERROR_CATEGORY_INVALID_RESPONSE. Works on any provider: it needs only the request and the response.
 */
import { create, equals, type Message } from "@bufbuild/protobuf";
import {
  type DispatchHookRequest,
  type DispatchHookResponse,
  HookDecision,
  HookMode,
  type HookPayload,
  HookPayloadSchema,
} from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import { hookPointTable } from "harness-tool/hook-points";
import { hookModeNameOf, hookPointOfVariant } from "../terminal/hook-names.js";

/** A broken response rule. */
export interface HookResponseProblem {
  readonly rule: "outcome-matches-mode" | "same-variant" | "immutable-unchanged" | "decision-set";
  readonly message: string;
}

/** The outcome case each mode expects (hook-dispatch.md: Dispatch modes → response shapes). */
const expectedOutcome = {
  [HookMode.OBSERVE]: "observe",
  [HookMode.TRANSFORM]: "transform",
  [HookMode.VETO]: "veto",
} as const;

/** Every response rule `response` breaks for `request`. */
export function checkHookResponse(request: DispatchHookRequest, response: DispatchHookResponse): HookResponseProblem[] {
  const mode = request.mode as keyof typeof expectedOutcome;
  const expected = expectedOutcome[mode];
  const got = response.outcome.case;
  if (got !== expected) {
    return [
      {
        rule: "outcome-matches-mode",
        message: `answered a ${hookModeNameOf(request.mode)} request with ${got ?? "no outcome"}, not ${expected}`,
      },
    ];
  }
  if (response.outcome.case === "veto") {
    const decision = response.outcome.value.decision;
    if (decision === HookDecision.ALLOW || decision === HookDecision.DENY) return [];
    return [
      {
        rule: "decision-set",
        message: `decided ${HookDecision[decision] ?? decision}, which is neither ALLOW nor DENY`,
      },
    ];
  }
  if (response.outcome.case === "transform") return checkTransform(request, response.outcome.value.payload);
  return [];
}

/** A transform answer: the request's variant, every immutable field as it came. */
function checkTransform(request: DispatchHookRequest, returned: HookPayload | undefined): HookResponseProblem[] {
  const sent = request.payload;
  if (!sent) return [];
  if (returned === undefined || returned.payload.case !== sent.payload.case) {
    return [
      {
        rule: "same-variant",
        message: `returned ${returned ? `a ${variantName(returned.payload.case)}` : "no"} payload for a ${variantName(sent.payload.case)} request`,
      },
    ];
  }
  const changed = changedImmutableFields(sent, returned);
  if (changed.length === 0) return [];
  const mutable = transformMutableFields(sent.payload.case);
  const allowed =
    mutable.length === 0
      ? "nothing at this point may change: the payload must come back identical"
      : `only ${mutable.join(", ")} may change`;
  return [{ rule: "immutable-unchanged", message: `changed ${changed.join(", ")}; ${allowed}` }];
}

/** The point a variant carries, by its agent.hcl name. */
function variantName(variant: HookPayload["payload"]["case"]): string {
  return hookPointOfVariant(variant) ?? "empty";
}

/** The fields a transform may change at the point carried by `variant` (hook-dispatch.md's table, held by the runtime). */
function transformMutableFields(variant: HookPayload["payload"]["case"]): readonly string[] {
  const point = hookPointOfVariant(variant);
  return point === undefined ? [] : hookPointTable[point].mutable;
}

/**
 * The top-level members (fields and oneofs) of the variant that differ between `sent` and
 * `returned`, mutable ones left out; each compared alone, with the others unset on both sides.
 */
function changedImmutableFields(sent: HookPayload, returned: HookPayload): string[] {
  if (equals(HookPayloadSchema, sent, returned)) return [];
  const variant = sent.payload.case as string;
  const field = HookPayloadSchema.fields.find((f) => f.localName === variant);
  if (field?.fieldKind !== "message") return ["the payload"];
  const mutable = new Set(transformMutableFields(sent.payload.case));
  const only = (value: unknown, member: string) => {
    const copy = create(field.message) as unknown as Record<string, unknown>;
    copy[member] = (value as Record<string, unknown>)[member];
    return copy as unknown as Message;
  };
  const changed = field.message.members
    .filter(
      (m) => !equals(field.message, only(sent.payload.value, m.localName), only(returned.payload.value, m.localName)),
    )
    .map((m) => m.name);
  // Equal member by member but not as a whole: what differs is outside the fields (unknown fields).
  if (changed.length === 0) return ["the payload"];
  return changed.filter((name) => !mutable.has(name));
}
