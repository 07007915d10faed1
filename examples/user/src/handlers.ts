// ask_user. The published protocol gives a provider no callback to reach the person (the kernel
// owns the frontend's interactive_request/response pair), so this example answers from the
// configured scripted answers and fails honestly when none is left.
import { ToolError } from "harness-tool";
import type { UserHandlers } from "./gen/examples/user/v1/user_tool.js";

/** Creates the handlers; each call takes the next scripted answer. */
export function createUserHandlers(): UserHandlers {
  let next = 0;
  return {
    async askUser(input, context) {
      const answers = context.config.scripted_answers ?? [];
      const answer = answers[next];
      if (answer === undefined) {
        throw new ToolError(
          "execution_failed",
          "ask_user: no person is attached to answer and no scripted answer is left",
          {
            details: { question: input.question },
          },
        );
      }
      next++;
      return { answer };
    },
  };
}

/** The user provider's handlers. */
export const handlers: UserHandlers = createUserHandlers();
