/**
 * createHookService: the HookSubscriberService of a provider that declares hooks, behind the
 * HookServiceCore door. It shares the ToolService's state (the accepted config, the secret exits,
 * the kernel connection, the in-flight calls that shutdown settles), so a hook handler sees what a
 * tool handler sees and everything it sends leaves through the same exits. docs/hooks.md.
 *
 * hook-dispatch.md — the deadline is the call's own; cancellation is ordinary control flow.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { MessageSchema } from "../../generated/pluggableharness/content/v1/content_pb.js";
import {
  HookErrorCategory,
  HookErrorSchema,
  type HookError,
} from "../../generated/pluggableharness/hook/v1/hook_pb.js";
import { Category } from "../../generated/pluggableharness/common/v1/common_pb.js";
import { GrpcCode } from "../../errors/rpc-status-error.js";
import {
  hookModeTable,
  hookPointTable,
  type HookModeName,
  type HookPointName,
} from "../../provider/hook-subscriptions.js";
import { describeHook, endHookSpan, startHookSpan } from "../../telemetry/hook-spans.js";
import type { CallTrace } from "../../telemetry/call-spans.js";
import type { SecretExits } from "../calls/secret-exits.js";
import type { ServiceRuntime } from "../calls/service-runtime.js";
import { PROTOCOL_VERSION } from "../calls/protocol-version.js";
import { HookInFlight, type HookStop } from "./hook-in-flight.js";
import { resolveHook, type ResolvedHook } from "./hook-request.js";
import {
  observeResponse,
  payloadBytesOf,
  transformResponse,
  vetoResponse,
  withMessagesReplaced,
} from "./hook-response-bytes.js";
import type { HookAnswer, HookCallControl, HookServiceCore } from "./hook-service-core.js";
import { readSafely, rendered } from "../../errors/error-stack.js";
import { reduceMachinePaths } from "../../errors/machine-paths.js";

/** What the hook service shares with the provider's ToolService (ToolService.serviceScope). */
export interface HookServiceScope {
  readonly rt: ServiceRuntime;
  readonly exits: SecretExits;
}

/** How long a handler's message may be in a status (longer ones are cut, with a note). */
const maxMessageChars = 2000;

/** The category a failed handler's call carries, by mode (hook.proto). */
const failureCategory: { readonly [M in HookModeName]: HookErrorCategory } = {
  observe: HookErrorCategory.UNKNOWN,
  transform: HookErrorCategory.TRANSFORM_FAILED,
  veto: HookErrorCategory.VETO_FAILED,
};

/** error.type on the span: the category's name in lower case. */
function categoryName(category: HookErrorCategory): string {
  return HookErrorCategory[category].toLowerCase();
}

/** A handler's failure as text: its message, the author's machine paths reduced (as a tool's `unknown` error's), cut to a bound. */
function messageOf(thrown: unknown): string {
  const raw =
    thrown instanceof Error
      ? readSafely(() => thrown.message, "")
      : typeof thrown === "string"
        ? thrown
        : rendered(thrown);
  const text = reduceMachinePaths(rendered(raw));
  return text.length <= maxMessageChars
    ? text
    : `${text.slice(0, maxMessageChars)}… (${text.length - maxMessageChars} more characters)`;
}

/** One failure, as a status and a HookError, through the exits. */
interface Failure {
  readonly code: number;
  readonly category: HookErrorCategory;
  readonly message: string;
}

/** The HookSubscriberService of `scope`'s provider, or undefined when it declares no hooks. */
export function createHookService(scope: HookServiceScope): HookServiceCore | undefined {
  const { rt, exits } = scope;
  const hooks = rt.provider.hooks;
  if (!hooks || Object.keys(hooks).length === 0) return undefined;
  const producer = {
    name: rt.provider.name,
    version: rt.provider.version,
    source: rt.provider.source,
    category: Category.TOOL,
    protocolVersion: PROTOCOL_VERSION,
  };

  const fail = (
    trace: CallTrace,
    point: HookPointName | undefined,
    mode: HookModeName | undefined,
    failure: Failure,
  ): HookAnswer => {
    const message = exits.text(failure.message);
    const hookError: HookError = create(HookErrorSchema, {
      ...(point ? { point: hookPointTable[point].point } : {}),
      subscriber: producer,
      ...(mode ? { mode: hookModeTable[mode] } : {}),
      category: failure.category,
      message,
    });
    endHookSpan(trace, { code: failure.code, outcome: "error", errorType: categoryName(failure.category) });
    return { ok: false, code: failure.code, message, hookError };
  };

  return {
    async dispatchHook(bytes: Uint8Array, control: HookCallControl): Promise<HookAnswer> {
      const trace = startHookSpan(control.trace);
      const resolved = resolveHook(bytes, hooks);
      describeHook(trace, resolved.point, resolved.mode);
      if ("refused" in resolved) {
        return fail(trace, resolved.point, resolved.mode, {
          code: GrpcCode.INVALID_ARGUMENT,
          category: HookErrorCategory.INVALID_RESPONSE,
          message: resolved.refused,
        });
      }
      const { point, mode } = resolved;
      const modeFailure = (code: number, message: string): HookAnswer =>
        fail(trace, point, mode, { code, category: failureCategory[mode], message });
      if (rt.shuttingDown()) return modeFailure(GrpcCode.UNAVAILABLE, "the provider is shutting down");
      const accepted = rt.accepted();
      if (!accepted)
        return modeFailure(
          GrpcCode.FAILED_PRECONDITION,
          "DispatchHook before Configure: the provider's configuration has required attributes",
        );
      if (resolved.handler === "identity") {
        endHookSpan(trace, { code: GrpcCode.OK, outcome: "ok", answer: "identity" });
        return { ok: true, response: transformResponse(payloadBytesOf(bytes)) };
      }
      const call = new HookInFlight(rt, resolved, accepted.config, control, trace);
      const settled = await call.run();
      if ("stopped" in settled)
        return stopped(trace, settled.stopped, (code, message, category) =>
          fail(trace, point, mode, { code, message, category }),
        );
      if ("thrown" in settled)
        return modeFailure(GrpcCode.INTERNAL, `the ${mode} handler at ${point} failed: ${messageOf(settled.thrown)}`);
      return answer(trace, resolved, bytes, settled.value, exits, modeFailure);
    },
  };
}

/** The answer to a call stopped before its handler settled. */
function stopped(
  trace: CallTrace,
  stop: HookStop,
  fail: (code: number, message: string, category: HookErrorCategory) => HookAnswer,
): HookAnswer {
  switch (stop) {
    case "cancelled":
      // Ordinary control flow: no HookError, nothing logged.
      endHookSpan(trace, { code: GrpcCode.CANCELLED, outcome: "cancelled" });
      return { ok: false, code: GrpcCode.CANCELLED, message: "the kernel cancelled the hook call" };
    case "timeout":
      return fail(
        GrpcCode.DEADLINE_EXCEEDED,
        "the hook handler did not finish before the call's deadline",
        HookErrorCategory.TIMEOUT,
      );
    case "shutdown":
      return fail(
        GrpcCode.UNAVAILABLE,
        "the provider shut down before the hook handler finished",
        HookErrorCategory.UNKNOWN,
      );
  }
}

/** The response to a handler's value, or a failure when the value is not what its mode returns. */
function answer(
  trace: CallTrace,
  hook: ResolvedHook,
  request: Uint8Array,
  value: unknown,
  exits: SecretExits,
  fail: (code: number, message: string) => HookAnswer,
): HookAnswer {
  const ok = (response: Uint8Array, answered?: string): HookAnswer => {
    endHookSpan(trace, { code: GrpcCode.OK, outcome: "ok", ...(answered ? { answer: answered } : {}) });
    return { ok: true, response };
  };
  switch (hook.mode) {
    case "observe":
      return ok(observeResponse());
    case "veto":
      if (value === "allow" || value === "deny") return ok(vetoResponse(value), value);
      return fail(
        GrpcCode.INTERNAL,
        `the veto handler at ${hook.point} returned ${describeValue(value)}, not "allow" or "deny"`,
      );
    case "transform": {
      const messages = (value as { messages?: unknown } | null | undefined)?.messages;
      if (!Array.isArray(messages)) {
        return fail(
          GrpcCode.INTERNAL,
          `the transform handler at ${hook.point} returned ${describeValue(value)}, not { messages: [...] }`,
        );
      }
      let payload: Uint8Array;
      try {
        // The messages a handler returns leave through the response exit: configured secrets redacted.
        const redacted = messages.map((m: unknown) =>
          exits.response(
            MessageSchema,
            create(MessageSchema, initShapeOf(m) as MessageInitShape<typeof MessageSchema>),
          ),
        );
        payload = withMessagesReplaced(payloadBytesOf(request), redacted);
      } catch (error) {
        return fail(
          GrpcCode.INTERNAL,
          `the transform handler at ${hook.point} returned messages that do not encode: ${messageOf(error)}`,
        );
      }
      return ok(transformResponse(payload), "transformed");
    }
  }
}

/**
 * `value` with every `$typeName` dropped, so a handler may mix created messages and plain objects
 * (`{ ...message, content: [{ block: ... }] }`): `create` takes an object that has a `$typeName`
 * as a finished message and would not convert the plain objects inside it.
 */
function initShapeOf(value: unknown): unknown {
  if (typeof value !== "object" || value === null || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(initShapeOf);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (key !== "$typeName") out[key] = initShapeOf(field);
  return out;
}

/** A short, safe description of a handler's unexpected value. */
function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
