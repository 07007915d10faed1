/**
 * Hook subscriptions: what a provider declares once, in `defineProvider({ hooks })`, to serve
 * pluggableharness.hook.v1.HookSubscriberService beside its ToolService. The declaration is keyed
 * by hook point (the kernel's agent.hcl names) and, per point, by the modes the provider accepts;
 * GetSchema's `supported_hook_points` is derived from its keys.
 *
 * The handler types make an illegal answer unrepresentable: an observer returns nothing, a veto
 * returns "allow" or "deny", and a transform exists only where the kernel's table lets a field
 * change (pre-model-call: `messages`) and returns only that field; at every other point a
 * transform subscription is the literal "identity" and the runtime answers with the payload it
 * received, byte for byte. docs/hooks.md.
 */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { Span, Tracer } from "@opentelemetry/api";
import { HookPoint } from "../generated/pluggableharness/common/v1/common_pb.js";
import type { MessageSchema } from "../generated/pluggableharness/content/v1/content_pb.js";
// Types only: a provider's start-up does not boot hook.proto's descriptors (and those of the
// content, model, plan and session protos it imports); hook-payload-schemas.ts has the values.
import type {
  HookMode,
  HookPayload,
  PlanReadyPayload,
  PostApplyPayload,
  PostModelResponsePayload,
  PostToolCallPayload,
  PreModelCallPayload,
  PreToolCallPayload,
  SessionEndPayload,
  SessionStartPayload,
} from "../generated/pluggableharness/hook/v1/hook_pb.js";
import type { KernelCallbacks, ToolLogger } from "./tool-context.js";

/**
 * The hook points, by the name agent.hcl gives them: the wire enum, the HookPayload variant that
 * carries the point, and the payload fields a transform may change (hook-dispatch.md's table).
 */
export const hookPointTable = {
  "session-start": { point: HookPoint.SESSION_START, variant: "sessionStart", mutable: [] },
  "pre-model-call": { point: HookPoint.PRE_MODEL_CALL, variant: "preModelCall", mutable: ["messages"] },
  "post-model-response": { point: HookPoint.POST_MODEL_RESPONSE, variant: "postModelResponse", mutable: [] },
  "pre-tool-call": { point: HookPoint.PRE_TOOL_CALL, variant: "preToolCall", mutable: [] },
  "plan-ready": { point: HookPoint.PLAN_READY, variant: "planReady", mutable: [] },
  "post-tool-call": { point: HookPoint.POST_TOOL_CALL, variant: "postToolCall", mutable: [] },
  "post-apply": { point: HookPoint.POST_APPLY, variant: "postApply", mutable: [] },
  "session-end": { point: HookPoint.SESSION_END, variant: "sessionEnd", mutable: [] },
} as const satisfies {
  readonly [name: string]: {
    readonly point: HookPoint;
    readonly variant: NonNullable<HookPayload["payload"]["case"]>;
    readonly mutable: readonly string[];
  };
};

/** A hook point by its agent.hcl name: "plan-ready", "pre-model-call", ... */
export type HookPointName = keyof typeof hookPointTable;

/** A subscription mode (hook.v1.HookMode), as agent.hcl's hook{} block names it. */
export type HookModeName = "observe" | "transform" | "veto";

/** Every point name, in wire order. */
export const hookPointNames = Object.keys(hookPointTable) as readonly HookPointName[];

/**
 * The wire enum of each mode (hook.v1.HookMode's numbers, written out so that this module needs
 * no hook.proto descriptor; test/runtime/service/hooks/hook-declaration.test.ts compares them).
 */
export const hookModeTable: { readonly [M in HookModeName]: HookMode } = {
  observe: 1 as HookMode,
  transform: 2 as HookMode,
  veto: 3 as HookMode,
};

/** The payload a handler at each point receives: the generated protobuf-es message. */
export interface HookPayloads {
  "session-start": SessionStartPayload;
  "pre-model-call": PreModelCallPayload;
  "post-model-response": PostModelResponsePayload;
  "pre-tool-call": PreToolCallPayload;
  "plan-ready": PlanReadyPayload;
  "post-tool-call": PostToolCallPayload;
  "post-apply": PostApplyPayload;
  "session-end": SessionEndPayload;
}

/**
 * What a transform returns at the points where something may change: only the mutable fields. The
 * runtime puts them back into the payload it received, every other field unchanged.
 */
export interface HookTransformResults {
  "pre-model-call": {
    /** The messages to send to the model instead (plain objects or created messages). */
    readonly messages: readonly MessageInitShape<typeof MessageSchema>[];
    /** Immutable: the turn's model is not a transform's to change. */
    readonly model?: never;
  };
}

/** The points where a transform can change something. */
export type MutableHookPointName = keyof HookTransformResults;

/** A veto's verdict (hook.v1.HookDecision without its unspecified zero). */
export type HookVerdict = "allow" | "deny";

/** The hook firing being served, from DispatchHookRequest and the call's deadline. */
export interface HookCallInfo {
  readonly point: HookPointName;
  readonly mode: HookModeName;
  /** DispatchHookRequest.subscription_id: which of several hook{} blocks at this point, when set. */
  readonly subscriptionId?: string;
  /** When the kernel stops waiting (the call's gRPC deadline), if it set one. */
  readonly deadline?: Date;
  /** The session the firing belongs to, when the payload names it (session-start, session-end); "" otherwise. */
  readonly sessionId: string;
}

/** The kernel callbacks a hook handler may make: Log and Emit (raw, or an event.v1 message). */
export type HookKernelCallbacks = Pick<KernelCallbacks, "log" | "emit" | "emitEvent">;

/** What a hook handler receives besides the payload. */
export interface HookContext<Config> {
  /** Aborted when the kernel cancels the call, its deadline passes, or the provider shuts down. */
  readonly signal: AbortSignal;
  readonly hook: HookCallInfo;
  /** The configuration accepted by Configure. */
  readonly config: Config;
  readonly kernel: HookKernelCallbacks;
  /** Structured logging that reaches the kernel (KernelCallbackService.Log). */
  readonly log: ToolLogger;
  /** The call's span (`pluggableharness.hook.v1.HookSubscriberService/DispatchHook`). */
  readonly span: Span;
  /** A tracer whose spans are children of the call's span. */
  readonly tracer: Tracer;
}

/** An observer: sees the payload, answers nothing. Its errors never change the kernel's chain. */
export type ObserveHook<Payload, Config> = (payload: Payload, context: HookContext<Config>) => Promise<void>;

/** A veto: "allow" or "deny". A throw, a timeout or a cancel counts as deny on the kernel's side. */
export type VetoHook<Payload, Config> = (payload: Payload, context: HookContext<Config>) => Promise<HookVerdict>;

/** A transform: returns the point's mutable fields only. */
export type TransformHook<Payload, Result, Config> = (
  payload: Payload,
  context: HookContext<Config>,
) => Promise<Result>;

/**
 * The transform of a point: a handler at a point with mutable fields; elsewhere the literal
 * "identity", answered by the runtime with the payload received.
 */
export type TransformFor<Point extends HookPointName, Config> = Point extends MutableHookPointName
  ? TransformHook<HookPayloads[Point], HookTransformResults[Point], Config>
  : "identity";

/** The modes one point accepts, each with its handler. */
export interface HookModes<Point extends HookPointName, Config> {
  readonly observe?: ObserveHook<HookPayloads[Point], Config>;
  readonly veto?: VetoHook<HookPayloads[Point], Config>;
  readonly transform?: TransformFor<Point, Config>;
}

/** At least one mode: a point with none would be advertised with nothing behind it. */
export type HookSubscription<Point extends HookPointName, Config> =
  | (HookModes<Point, Config> & { readonly observe: ObserveHook<HookPayloads[Point], Config> })
  | (HookModes<Point, Config> & { readonly veto: VetoHook<HookPayloads[Point], Config> })
  | (HookModes<Point, Config> & { readonly transform: TransformFor<Point, Config> });

/** `defineProvider({ hooks })`: the points the provider subscribes to, each with its modes. */
export type HookSubscriptions<Config> = {
  readonly [Point in HookPointName]?: HookSubscription<Point, Config>;
};

/**
 * The subscriptions of a generated provider whose proto lists `supported_hook_points`: exactly
 * those points, each required (the generated `XxxHandlers.hooks`).
 */
export type HookSubscriptionsFor<Points extends HookPointName, Config> = {
  readonly [Point in Points]: HookSubscription<Point, Config>;
};

/** One point's modes with the handler types erased, as the runtime holds them. */
export interface ErasedHookModes {
  readonly observe?: ObserveHook<never, never>;
  readonly veto?: VetoHook<never, never>;
  readonly transform?: TransformHook<never, unknown, never> | "identity";
}

/** The erased declaration: what ProviderDefinition.hooks holds. */
export type HookTable = { readonly [Point in HookPointName]?: ErasedHookModes };

const modeNames: readonly HookModeName[] = ["observe", "transform", "veto"];

/**
 * Every problem of a hook declaration (one line each, naming the point and the fix): an unknown
 * point or mode, a point with no mode, a handler that is not a function, a transform handler at a
 * point where nothing may change, "identity" where a handler is needed.
 */
export function hookDeclarationProblems(hooks: unknown): string[] {
  if (hooks === undefined) return [];
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))
    return ["hooks: must be an object keyed by hook point [hooks-object]"];
  const problems: string[] = [];
  for (const [point, modes] of Object.entries(hooks as JsonObject)) {
    if (!(point in hookPointTable)) {
      problems.push(`hooks.${point}: not a hook point (one of ${hookPointNames.join(", ")}) [hook-point-known]`);
      continue;
    }
    const mutable = hookPointTable[point as HookPointName].mutable.length > 0;
    if (typeof modes !== "object" || modes === null || Array.isArray(modes)) {
      problems.push(`hooks.${point}: must be an object of modes (observe, transform, veto) [hook-modes-object]`);
      continue;
    }
    const given = Object.entries(modes).filter(([, handler]) => handler !== undefined);
    if (given.length === 0)
      problems.push(
        `hooks.${point}: no mode: give observe, transform or veto, or remove the point [hook-point-handled]`,
      );
    for (const [mode, handler] of given) {
      if (!modeNames.includes(mode as HookModeName)) {
        problems.push(`hooks.${point}.${mode}: not a mode (observe, transform or veto) [hook-mode-known]`);
      } else if (mode === "transform" && !mutable && handler !== "identity") {
        problems.push(
          `hooks.${point}.transform: nothing at ${point} may change: write "identity" [hook-transform-identity]`,
        );
      } else if (mode === "transform" && mutable && typeof handler !== "function") {
        problems.push(
          `hooks.${point}.transform: must be an async function returning the mutable fields [hook-handler-function]`,
        );
      } else if (mode !== "transform" && typeof handler !== "function") {
        problems.push(
          `hooks.${point}.${mode}: must be an async function (payload, context) => ... [hook-handler-function]`,
        );
      }
    }
  }
  return problems;
}

/** The points a declaration subscribes to, as GetSchema advertises them (wire order). */
export function supportedHookPointsOf(hooks: HookTable | undefined): HookPoint[] {
  if (!hooks) return [];
  return hookPointNames.filter((name) => hooks[name] !== undefined).map((name) => hookPointTable[name].point);
}
