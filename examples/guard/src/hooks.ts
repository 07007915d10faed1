// The guard's hook subscriptions, the reason it exists:
// - plan-ready, veto: a plan with a path argument outside the configured root is denied before
//   anything in it applies (a throw or a timeout here also denies: the kernel fails veto closed);
// - post-tool-call, observe: one audit line per finished tool call, through the kernel's Log;
// - pre-model-call, transform: every match of the configured patterns is replaced with
//   [REDACTED] in the messages about to be sent to the model; only `messages` may change there,
//   so that is all this handler returns (the runtime keeps `model` as the kernel sent it).
import type { GuardConfig, GuardHandlers } from "./gen/examples/guard/v1/guard_tool.js";
import { auditFields, pathsOutsideRoot, redactMessages } from "./guard-rules.js";

/** The configured patterns, compiled once per configuration; a bad pattern fails the transform (the kernel then stops the model call). */
const compiled = new WeakMap<readonly string[], RegExp[]>();
function redactPatterns(config: GuardConfig): RegExp[] {
  const sources = config.redact_patterns ?? [];
  let patterns = compiled.get(sources);
  if (!patterns) {
    patterns = sources.map((source, i) => {
      try {
        return new RegExp(source, "g");
      } catch (error) {
        throw new Error(`redact_patterns[${i}] is not a regular expression: ${(error as Error).message}`);
      }
    });
    compiled.set(sources, patterns);
  }
  return patterns;
}

/** The guard's subscriptions: the points the proto's supported_hook_points lists, the mode at each, the handler. */
export const hooks: GuardHandlers["hooks"] = {
  "plan-ready": {
    async veto(payload, context) {
      // The protocol says plan MUST be set; without one there is nothing to judge, so deny.
      if (!payload.plan) return "deny";
      const outside = pathsOutsideRoot(payload.plan, context.config.root);
      if (outside.length === 0) return "allow";
      context.log.warn("plan denied: it touches paths outside the guarded folder", {
        root: context.config.root,
        outside: outside.map((o) => `${o.tool} ${o.argument}=${o.path}`),
      });
      return "deny";
    },
  },
  "post-tool-call": {
    async observe(payload, context) {
      await context.kernel.log("info", "audit: tool call finished", auditFields(payload));
    },
  },
  "pre-model-call": {
    async transform(payload, context) {
      const { messages, count } = redactMessages(payload.messages, redactPatterns(context.config));
      if (count > 0) context.log.info("redacted secrets from the messages for the model", { count });
      return { messages };
    },
  },
};
