/**
 * Hook points and modes by the names agent.hcl's hook{} blocks use ("plan-ready", "veto"), from
 * their wire values, with the runtime's tables (harness-tool's hookPointTable, hookModeTable).
 */
import type { HookPoint } from "harness-tool/generated/pluggableharness/common/v1/common_pb.js";
import type { HookMode, HookPayload } from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { HookModeName, HookPointName } from "harness-tool";
import { hookModeTable, hookPointNames, hookPointTable } from "harness-tool/hook-points";

/** "plan-ready", or "point N" for a value the protocol does not name. */
export function hookPointNameOf(point: HookPoint): string {
  return hookPointNames.find((name) => hookPointTable[name].point === point) ?? `point ${point}`;
}

/** The point whose HookPayload variant is `variant` ("planReady" → "plan-ready"). */
export function hookPointOfVariant(variant: HookPayload["payload"]["case"]): HookPointName | undefined {
  return hookPointNames.find((name) => hookPointTable[name].variant === variant);
}

/** "observe", "transform", "veto", or "mode N". */
export function hookModeNameOf(mode: HookMode): string {
  return (Object.keys(hookModeTable) as HookModeName[]).find((name) => hookModeTable[name] === mode) ?? `mode ${mode}`;
}
