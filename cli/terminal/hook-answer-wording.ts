/**
 * How a DispatchHook's answer or failure reads, in `harness-tool hook` and in the inspector's Hooks
 * panel alike: the verdict's word, the HookError's category, what the kernel does with a failure by
 * mode (hook-dispatch.md: Subscriber error handling), and the one line a failure is told in.
 */
import {
  HookDecision,
  HookErrorCategory,
  type HookError,
} from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { HookModeName } from "harness-tool";

/** What the kernel does with a failed call, by mode. */
export const kernelOnHookError: { readonly [M in HookModeName]: string } = {
  observe: "the kernel logs it and the chain continues",
  transform: "the kernel stops the chain and raises hook_error",
  veto: "the kernel fails closed: deny",
};

/** "allow", "deny", or what the verdict is instead (which the kernel rejects). */
export function verdictName(decision: HookDecision): string {
  if (decision === HookDecision.ALLOW) return "allow";
  if (decision === HookDecision.DENY) return "deny";
  return HookDecision[decision]?.toLowerCase() ?? `decision ${decision}`;
}

/** The HookError's category as the kernel's enum names it without its prefix: "INVALID_RESPONSE", "VETO_FAILED", ... */
export function hookErrorCategoryName(category: HookErrorCategory): string {
  return HookErrorCategory[category] ?? String(category);
}

/** True for the refusal of a point or mode the provider does not subscribe to: the HookError category INVALID_RESPONSE. */
export function isHookRefusal(hookError: HookError | undefined): boolean {
  return hookError?.category === HookErrorCategory.INVALID_RESPONSE;
}

/** A failed DispatchHook in one line: the gRPC status, the HookError's category, what to do about a refusal, and what the kernel does. */
export function hookFailureLine(
  failure: { readonly code: number; readonly details: string; readonly hookError?: HookError | undefined },
  mode: HookModeName,
): string {
  const category = failure.hookError ? `, HookError ${hookErrorCategoryName(failure.hookError.category)}` : "";
  if (isHookRefusal(failure.hookError)) {
    return `DispatchHook refused (gRPC status ${failure.code}${category}): ${failure.details} (fire what it subscribes to, or declare this); ${kernelOnHookError[mode]}`;
  }
  return `DispatchHook failed (gRPC status ${failure.code}${category}): ${failure.details}; ${kernelOnHookError[mode]}`;
}
