// spawn_subagent through the kernel's RunSession callback.
import { SessionStatus } from "harness-tool/generated/pluggableharness/session/v1/session_pb.js";
import type { AgentHandlers } from "./gen/examples/agent/v1/agent_tool.js";

/** The text parts of a message, joined (the content model's shape is read loosely on purpose). */
function textOf(message: unknown): string {
  const parts: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === "text" && typeof child === "string") parts.push(child);
        else if (key !== "$typeName") visit(child);
      }
    }
  };
  visit(message);
  return parts.join("\n");
}

/** The agent provider's handlers. */
export const handlers: AgentHandlers = {
  async spawnSubagent(input, context) {
    const result = await context.kernel.runSession({
      profile: context.config.profile,
      prompt: input.prompt,
      parentSessionId: context.call.sessionId,
      remainingDepth: context.config.max_depth ?? 1,
      remainingCostBudgetUsd: context.config.budget_usd ?? 1,
    });
    const status = SessionStatus[result.status] ?? "UNSPECIFIED";
    return {
      session_id: result.sessionId,
      status: status.toLowerCase(),
      answer: textOf(result.finalMessage),
      cost_usd: result.totalCostUsd,
    };
  },
};
