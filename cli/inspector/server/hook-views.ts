/**
 * The Hooks panel's side of the session, as plain functions: the points the page offers (every
 * point, with check's sample payload, once the provider advertises one), a DispatchHook's answer or
 * failure as the page shows it (worded as `harness-tool hook` words it), and which kernel Log lines
 * a hook handler wrote. The session keeps the state and sends everything through its one exit.
 */
import { create, equals, toJson } from "@bufbuild/protobuf";
import type { HookPoint } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import {
  DispatchHookRequestSchema,
  DispatchHookResponseSchema,
  HookPayloadSchema,
  type DispatchHookRequest,
  type DispatchHookResponse,
  type HookPayload,
} from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { LogRequest } from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import { LogLevel } from "harness-tool/generated/pluggableharness/log/v1/log_pb.js";
import type { HookModeName, HookPointName } from "harness-tool";
import { hookModeTable, hookPointNames, hookPointTable } from "harness-tool/hook-points";
import { hookPayloadSchemas, type HookDispatchError } from "harness-tool/host";
import { hookPayloadFromJson, hookPayloadJson, HookPayloadJsonError } from "../../check/hook-payload-json.js";
import { checkHookResponse } from "../../check/hook-response-shape.js";
import { sampleHookPayload } from "../../check/hook-samples.js";
import {
  hookErrorCategoryName,
  hookFailureLine,
  isHookRefusal,
  kernelOnHookError,
  verdictName,
} from "../../terminal/hook-answer-wording.js";
import type { HookAnswerView, HookLogView, HookPointView, HookRequestBody, Json } from "../protocol/page-protocol.js";

/** The deadline of a hook call the page names none for, as `harness-tool hook --timeout`'s default. */
export const defaultHookTimeoutMs = 10_000;

/** A hook request the page sent that cannot be fired (unknown point or mode, a payload that is not the point's message). */
export class HookRequestProblem extends Error {
  override readonly name = "HookRequestProblem";
}

/**
 * Every point, each with check's sample payload (paths relative to `cwd`), when `advertised` holds at
 * least one; none otherwise, and the page shows no Hooks panel.
 */
export function hookPointViews(advertised: readonly HookPoint[], cwd: string): HookPointView[] {
  if (advertised.length === 0) return [];
  return hookPointNames.map((name) => ({
    name,
    advertised: advertised.includes(hookPointTable[name].point),
    payloadType: hookPayloadSchemas[name].name,
    mutable: [...hookPointTable[name].mutable],
    sample: hookPayloadJson(sampleHookPayload(name, cwd)) as Json,
  }));
}

/** The DispatchHookRequest of a page's body; a HookRequestProblem saying what is wrong. */
export function hookRequestOf(body: HookRequestBody): {
  point: HookPointName;
  mode: HookModeName;
  request: DispatchHookRequest;
  timeoutMs: number;
} {
  if (typeof body.point !== "string" || !(hookPointNames as readonly string[]).includes(body.point)) {
    throw new HookRequestProblem(
      `point must be one of ${hookPointNames.join(", ")}, not ${JSON.stringify(body.point)}`,
    );
  }
  if (typeof body.mode !== "string" || !Object.hasOwn(hookModeTable, body.mode)) {
    throw new HookRequestProblem(`mode must be observe, transform or veto, not ${JSON.stringify(body.mode)}`);
  }
  const point = body.point as HookPointName;
  const mode = body.mode as HookModeName;
  if (typeof body.payload !== "object" || body.payload === null || Array.isArray(body.payload))
    throw new HookRequestProblem("payload must be a JSON object");
  const timeoutMs = body.timeoutMs ?? defaultHookTimeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new HookRequestProblem("timeoutMs must be a positive whole number of milliseconds");
  if (body.subscriptionId !== undefined && typeof body.subscriptionId !== "string")
    throw new HookRequestProblem("subscriptionId must be a string");
  let payload: HookPayload;
  try {
    payload = hookPayloadFromJson(point, body.payload);
  } catch (e) {
    if (e instanceof HookPayloadJsonError) throw new HookRequestProblem(`the payload is ${e.message}`);
    throw e;
  }
  const request = create(DispatchHookRequestSchema, {
    payload,
    mode: hookModeTable[mode],
    ...(body.subscriptionId ? { subscriptionId: body.subscriptionId } : {}),
  });
  return { point, mode, request, timeoutMs };
}

/** The runtime's answer as the page shows it, with the response rules it breaks (what the kernel rejects). */
export function hookAnswerView(
  request: DispatchHookRequest,
  response: DispatchHookResponse,
  mode: HookModeName,
): HookAnswerView {
  const problems = checkHookResponse(request, response).map((p) => p.message);
  const common = {
    ok: true as const,
    response: toJson(DispatchHookResponseSchema, response) as Json,
    problems,
    ...(problems.length > 0 ? { kernel: kernelOnHookError[mode] } : {}),
  };
  const outcome = response.outcome;
  switch (outcome.case) {
    case "observe":
      return { ...common, outcome: "observe" };
    case "veto":
      return { ...common, outcome: "veto", decision: verdictName(outcome.value.decision) };
    case "transform": {
      const returned = outcome.value.payload;
      const unchanged =
        returned !== undefined && request.payload !== undefined && equals(HookPayloadSchema, returned, request.payload);
      return {
        ...common,
        outcome: "transform",
        payload: (returned ? hookPayloadJson(returned) : {}) as Json,
        unchanged,
      };
    }
    default:
      return { ...common, outcome: "none" };
  }
}

/** A failed hook call as the page shows it: the status, the HookError's category, the CLI's line. */
export function hookFailureView(
  error: HookDispatchError,
  mode: HookModeName,
  statusName: (code: number) => string,
  cancelled: boolean,
): HookAnswerView {
  return {
    ok: false,
    status: statusName(error.code),
    ...(error.hookError ? { category: hookErrorCategoryName(error.hookError.category) } : {}),
    message: error.hookError?.message || error.details,
    refused: isHookRefusal(error.hookError),
    cancelled,
    line: cancelled
      ? "cancelled, as the kernel cancels a hook call when the turn is aborted"
      : hookFailureLine(error, mode),
  };
}

/**
 * The hook point a Log line's logger names, when a hook handler wrote it: the runtime names the
 * logger of a handler's `ctx.log` and `ctx.kernel.log` `<provider>.hook.<point>`.
 */
export function hookPointOfLogger(logger: string): HookPointName | undefined {
  const at = logger.lastIndexOf(".hook.");
  if (at < 0) return undefined;
  const name = logger.slice(at + ".hook.".length);
  return (hookPointNames as readonly string[]).includes(name) ? (name as HookPointName) : undefined;
}

/** A Log request as a hook's log line. */
export function hookLogView(request: LogRequest): HookLogView {
  const entry = request.entry;
  return {
    level: entry ? (LogLevel[entry.level]?.toLowerCase() ?? String(entry.level)) : "",
    logger: entry?.logger ?? "",
    message: entry?.message ?? "",
    fields: (entry?.fields ?? {}) as { [key: string]: Json },
  };
}
