// ask_user, on the frontend protocol's path: its prompt is its Preview, which the kernel shows the
// person (InteractiveRequest.prompt); the person's answer becomes the result once it matches the
// output schema. Invoke asks on the terminal instead: the development fallback, for `harness-tool
// invoke` (a provider the kernel launches has no terminal, and says so).
import { interactiveTool, type RenderTreeInit } from "harness-tool";
import { type AskUserInput, askUserTool, type UserHandlers } from "./gen/examples/user/v1/user_tool.js";

/** The prompt: the question, then the offered answers as a list. */
export function askUserPrompt(input: AskUserInput): RenderTreeInit {
  const question = { node: { case: "text" as const, value: { content: input.question } } };
  const choices = input.choices ?? [];
  if (choices.length === 0) return { root: question };
  const items = choices.map((choice) => ({ node: { case: "text" as const, value: { content: choice } } }));
  return {
    root: { node: { case: "group", value: { children: [question, { node: { case: "list", value: { items } } }] } } },
  };
}

/** ask_user's prompt, the check of an answer and the terminal fallback. */
export const askUser = interactiveTool(askUserTool, { prompt: askUserPrompt });

/** The user provider's handlers. */
export const handlers: UserHandlers = { askUser: askUser.invoke, previewAskUser: askUser.prompt };
