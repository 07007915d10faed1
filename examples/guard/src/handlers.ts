// The guard's handlers: its hook subscriptions (src/hooks.ts), and check_path, the veto's judgement
// offered to the model before it plans, so it can keep its plan inside the guarded folder instead
// of having it denied.
import path from "node:path";
import type { GuardHandlers } from "./gen/examples/guard/v1/guard_tool.js";
import { isInside } from "./guard-rules.js";
import { hooks } from "./hooks.js";

/** The guard provider's handlers. */
export const handlers: GuardHandlers = {
  hooks,
  async checkPath(input, context) {
    const root = context.config.root;
    return { inside: isInside(root, input.path), resolved: path.resolve(root, input.path) };
  },
};
