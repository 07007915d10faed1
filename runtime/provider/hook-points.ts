/**
 * `harness-tool/hook-points`: the hook point table and the hook declaration's rules, as the CLI's
 * `hook` and `check` commands and the inspector read them (a provider's handler types are in the
 * main entry).
 */
export {
  hookDeclarationProblems,
  hookModeTable,
  hookPointNames,
  hookPointTable,
  supportedHookPointsOf,
  type ErasedHookModes,
  type HookModeName,
  type HookPointName,
  type HookTable,
} from "./hook-subscriptions.js";
