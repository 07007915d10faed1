/**
 * ask_user on the kernel's interactive path: its prompt is its Preview, which the kernel shows the
 * person through its frontend (InteractiveRequest.prompt), and the person's answer becomes the
 * call's result once it matches AskUserResponse's schema (`askUser.answer` checks it as the kernel
 * does). Its Invoke is the development fallback only: it shows the same prompt on the terminal the
 * provider was started from (`npx harness-tool invoke . ask_user --args '{"question": "Ready?"}'`)
 * and reads the answer as a line; a provider with no terminal (one the kernel launches, CI) fails
 * that call with an execution_failed ToolError that says a person answers through the frontend.
 */
export const askUser = interactiveTool(askUserTool, {
  prompt: (input) => ({ root: { node: { case: "text", value: { content: input.question } } } }),
});
