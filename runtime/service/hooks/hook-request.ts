/**
 * A DispatchHookRequest checked against the provider's declaration: it decodes, its payload is set,
 * its variant (the point) is one the provider subscribes to, and its mode is set and declared at
 * that point. Anything else is refused before a handler runs: the answer could not have the shape
 * the kernel asked for, so the kernel gets an error (HookError category INVALID_RESPONSE), never a
 * success of the wrong shape.
 *
 * hook-dispatch.md — a response whose variant does not match the mode is INVALID_RESPONSE.
 */
import { fromBinary } from "@bufbuild/protobuf";
import {
  DispatchHookRequestSchema,
  HookMode,
  type DispatchHookRequest,
} from "../../generated/pluggableharness/hook/v1/hook_pb.js";
import {
  hookModeTable,
  hookPointNames,
  hookPointTable,
  type ErasedHookModes,
  type HookModeName,
  type HookPointName,
  type HookTable,
} from "../../provider/hook-subscriptions.js";

/** A request the provider can answer. */
export interface ResolvedHook {
  readonly request: DispatchHookRequest;
  readonly point: HookPointName;
  readonly mode: HookModeName;
  /** What the declaration holds for that mode: a handler, or "identity". */
  readonly handler: NonNullable<ErasedHookModes[HookModeName]>;
}

/** A request refused, with what the span may still say about it. */
export interface RefusedHook {
  readonly refused: string;
  readonly point?: HookPointName;
  readonly mode?: HookModeName;
}

const modeByWire = new Map<HookMode, HookModeName>(
  Object.entries(hookModeTable).map(([name, wire]) => [wire, name as HookModeName]),
);
const pointByVariant = new Map<string, HookPointName>(
  hookPointNames.map((name) => [hookPointTable[name].variant, name]),
);

/** The declared modes of a point, as a phrase. */
function declaredModes(modes: ErasedHookModes): string {
  return (["observe", "transform", "veto"] as const).filter((m) => modes[m] !== undefined).join(", ");
}

/** Decodes and checks one request against `hooks`. */
export function resolveHook(bytes: Uint8Array, hooks: HookTable): ResolvedHook | RefusedHook {
  let request: DispatchHookRequest;
  try {
    request = fromBinary(DispatchHookRequestSchema, bytes);
  } catch (error) {
    return {
      refused: `the DispatchHookRequest does not decode: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const mode = modeByWire.get(request.mode);
  const variant = request.payload?.payload.case;
  const point = variant === undefined ? undefined : pointByVariant.get(variant);
  const named = { ...(point ? { point } : {}), ...(mode ? { mode } : {}) };
  if (point === undefined)
    return { ...named, refused: "the request carries no hook payload (DispatchHookRequest.payload names the point)" };
  if (mode === undefined) {
    return {
      ...named,
      refused: `the request's mode is ${request.mode === HookMode.UNSPECIFIED ? "unset" : `unknown (${request.mode})`}`,
    };
  }
  const modes = hooks[point];
  if (!modes) {
    const subscribed = hookPointNames.filter((name) => hooks[name] !== undefined);
    return {
      ...named,
      refused: `this provider does not subscribe to ${point} (it subscribes to ${subscribed.join(", ") || "no hook point"})`,
    };
  }
  const handler = modes[mode];
  if (handler === undefined)
    return { ...named, refused: `this provider subscribes to ${point} in ${declaredModes(modes)} mode, not ${mode}` };
  return { request, point, mode, handler };
}
