/**
 * The rules about HookSubscriberService (hook-dispatch.md; docs/hooks.md). The wire says which points
 * a provider subscribes to (GetSchema's supported_hook_points) but not in which modes (agent.hcl
 * does), so every mode is tried at every advertised point with a sample payload: each is either
 * answered in the mode's shape (an ObserveAck; a transform that changes only what the point lets
 * it change, so nothing at all outside pre-model-call; a veto of ALLOW or DENY) or refused as not
 * subscribed, and at least one mode is answered. Every point it does not advertise, a request
 * without a mode and one without a payload must be refused with the error the kernel files as
 * INVALID_RESPONSE (INVALID_ARGUMENT carrying a HookError of that category), never answered.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  DispatchHookRequestSchema,
  HookDecision,
  HookErrorCategory,
  type DispatchHookResponse,
} from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { GetSchemaResponse } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { HookModeName, HookPointName } from "harness-tool";
import { hookModeTable, hookPointNames, hookPointTable } from "harness-tool/hook-points";
import { HookDispatchError, type LaunchedProvider } from "harness-tool/host";
import { ruleResult, type RuleResult, type RuleStatus } from "./conformance-report.js";
import { checkHookResponse } from "./hook-response-shape.js";
import { sampleHookPayload } from "./hook-samples.js";

/** gRPC status codes the rules name. */
const grpcCode = { invalidArgument: 3, deadlineExceeded: 4, unimplemented: 12 } as const;

const modes = Object.keys(hookModeTable) as HookModeName[];

/** What one DispatchHook came to. */
type Outcome = { readonly answered: DispatchHookResponse } | { readonly failed: HookDispatchError };

/** Options of the hook rules. */
export interface HookRuleOptions {
  /** CallContext.working_directory and the base of the sample payloads' paths. */
  readonly cwd: string;
  /** The deadline of each DispatchHook, as the kernel's per-subscriber timeout; default 10 s. */
  readonly timeoutMs?: number;
}

async function dispatch(
  launched: LaunchedProvider,
  request: MessageInitShape<typeof DispatchHookRequestSchema>,
  timeoutMs: number,
): Promise<Outcome> {
  try {
    return { answered: await launched.dispatchHookRequest(request, { timeoutMs }) };
  } catch (e) {
    if (e instanceof HookDispatchError) return { failed: e };
    throw e;
  }
}

/** The refusal a request the provider did not subscribe to must get: INVALID_ARGUMENT with a HookError INVALID_RESPONSE. */
function isRefusal(e: HookDispatchError): boolean {
  return e.code === grpcCode.invalidArgument && e.hookError?.category === HookErrorCategory.INVALID_RESPONSE;
}

function failureText(e: HookDispatchError): string {
  const category = e.hookError ? ` (HookError ${HookErrorCategory[e.hookError.category] ?? e.hookError.category})` : "";
  return `gRPC status ${e.code}${category}: ${e.details}`;
}

/** One mode at an advertised point: its status, and a phrase for the row's reason. */
function judgeMode(
  mode: HookModeName,
  request: MessageInitShape<typeof DispatchHookRequestSchema>,
  outcome: Outcome,
): { status: RuleStatus | "refused"; why: string } {
  if ("answered" in outcome) {
    const problems = checkHookResponse(create(DispatchHookRequestSchema, request), outcome.answered);
    if (problems.length > 0)
      return { status: "fail", why: `${mode}: ${problems.map((p) => p.message).join("; ")} (INVALID_RESPONSE)` };
    const answer = outcome.answered.outcome;
    const what =
      answer.case === "veto"
        ? answer.value.decision === HookDecision.ALLOW
          ? "allow"
          : "deny"
        : answer.case === "observe"
          ? "acknowledged"
          : "conforming payload";
    return { status: "pass", why: `${mode}: ${what}` };
  }
  const e = outcome.failed;
  if (isRefusal(e)) return { status: "refused", why: `${mode}: refused, not subscribed` };
  if (e.code === grpcCode.deadlineExceeded)
    return {
      status: "fail",
      why: `${mode}: no answer before the deadline (${failureText(e)}); a handler that hangs is a failure to the kernel`,
    };
  if (e.hookError && e.hookError.category !== HookErrorCategory.INVALID_RESPONSE)
    return { status: "warn", why: `${mode}: the handler failed on the sample payload (${failureText(e)})` };
  return { status: "fail", why: `${mode}: ${failureText(e)}, neither an answer nor the INVALID_RESPONSE refusal` };
}

/** One row per advertised point: every mode answered in its shape or refused, at least one answered. */
async function advertisedPointRow(
  launched: LaunchedProvider,
  point: HookPointName,
  options: HookRuleOptions,
): Promise<RuleResult> {
  const payload = sampleHookPayload(point, options.cwd);
  const judged = [];
  for (const mode of modes) {
    const request = { payload, mode: hookModeTable[mode] };
    judged.push(judgeMode(mode, request, await dispatch(launched, request, options.timeoutMs ?? 10_000)));
  }
  const section = "DispatchHook: response shape per mode";
  const reasons = judged.map((j) => j.why).join("; ");
  if (judged.every((j) => j.status === "refused"))
    return ruleResult(
      `hooks.point:${point}`,
      section,
      "fail",
      `advertised in supported_hook_points, but every mode was refused: ${reasons}`,
    );
  const status = judged.some((j) => j.status === "fail")
    ? "fail"
    : judged.some((j) => j.status === "warn")
      ? "warn"
      : "pass";
  return ruleResult(`hooks.point:${point}`, section, status, reasons);
}

/** Every point the provider does not advertise, in every mode, is refused. */
async function unadvertisedRow(
  launched: LaunchedProvider,
  advertised: readonly HookPointName[],
  options: HookRuleOptions,
): Promise<RuleResult> {
  const section = "DispatchHook: undeclared point refused";
  const others = hookPointNames.filter((p) => !advertised.includes(p));
  if (others.length === 0)
    return ruleResult("hooks.unadvertised-refused", section, "skip", "every hook point is advertised");
  const wrong: string[] = [];
  for (const point of others) {
    for (const mode of modes) {
      const outcome = await dispatch(
        launched,
        { payload: sampleHookPayload(point, options.cwd), mode: hookModeTable[mode] },
        options.timeoutMs ?? 10_000,
      );
      if ("answered" in outcome)
        wrong.push(`${point} ${mode}: answered ${outcome.answered.outcome.case ?? "with no outcome"}`);
      // A provider that advertises no point may not serve HookSubscriberService at all.
      else if (
        !isRefusal(outcome.failed) &&
        !(advertised.length === 0 && outcome.failed.code === grpcCode.unimplemented)
      )
        wrong.push(`${point} ${mode}: ${failureText(outcome.failed)}`);
    }
  }
  if (wrong.length > 0)
    return ruleResult(
      "hooks.unadvertised-refused",
      section,
      "fail",
      `not refused as INVALID_RESPONSE: ${wrong.join("; ")}`,
    );
  return ruleResult(
    "hooks.unadvertised-refused",
    section,
    "pass",
    `${others.length} point(s) × ${modes.length} modes refused`,
  );
}

/** A request without a mode, and one without a payload, at an advertised point: refused. */
async function malformedRow(
  launched: LaunchedProvider,
  point: HookPointName | undefined,
  options: HookRuleOptions,
): Promise<RuleResult> {
  const section = "DispatchHook: request without mode or payload refused";
  if (point === undefined)
    return ruleResult("hooks.malformed-refused", section, "skip", "the provider advertises no hook point");
  const requests = {
    "mode unset": { payload: sampleHookPayload(point, options.cwd) },
    "no payload": { mode: hookModeTable.observe },
  };
  const wrong: string[] = [];
  for (const [what, request] of Object.entries(requests)) {
    const outcome = await dispatch(launched, request, options.timeoutMs ?? 10_000);
    if ("answered" in outcome) wrong.push(`${what}: answered ${outcome.answered.outcome.case ?? "with no outcome"}`);
    else if (!isRefusal(outcome.failed)) wrong.push(`${what}: ${failureText(outcome.failed)}`);
  }
  if (wrong.length > 0)
    return ruleResult(
      "hooks.malformed-refused",
      section,
      "fail",
      `not refused as INVALID_RESPONSE: ${wrong.join("; ")}`,
    );
  return ruleResult("hooks.malformed-refused", section, "pass", `at ${point}: mode unset and no payload refused`);
}

/** supported_hook_points names each point once, and only the eight dispatchable ones. */
function advertisedRow(schema: GetSchemaResponse, advertised: readonly HookPointName[]): RuleResult {
  const section = "GetSchema: supported_hook_points";
  const listed = schema.supportedHookPoints;
  const unknown = listed.filter((p) => !advertised.some((name) => hookPointTable[name].point === p));
  if (unknown.length > 0)
    return ruleResult(
      "hooks.advertised",
      section,
      "fail",
      `not a dispatchable hook point: ${unknown.map((p) => `HookPoint ${p}`).join(", ")}`,
    );
  if (listed.length !== advertised.length)
    return ruleResult("hooks.advertised", section, "fail", "a hook point is listed more than once");
  return ruleResult(
    "hooks.advertised",
    section,
    "pass",
    advertised.length === 0 ? "no hook point" : advertised.join(", "),
  );
}

/** The hook rows, after Configure (the kernel configures a provider before it fires any hook). */
export async function hookRules(
  launched: LaunchedProvider,
  schema: GetSchemaResponse,
  options: HookRuleOptions,
): Promise<RuleResult[]> {
  const advertised = hookPointNames.filter((p) => schema.supportedHookPoints.includes(hookPointTable[p].point));
  const rows = [advertisedRow(schema, advertised)];
  for (const point of advertised) rows.push(await advertisedPointRow(launched, point, options));
  rows.push(await unadvertisedRow(launched, advertised, options));
  rows.push(await malformedRow(launched, advertised[0], options));
  return rows;
}
