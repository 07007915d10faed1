  async askUser(input, context) {
    // Asks on the terminal the provider was started from (see openTerminal): `npx harness-tool
    // invoke . ask_user --args '{"question": "Ready?"}'` prints the question and waits for a line.
    // A provider the kernel runs reaches its user through a channel of its own instead.
    context.log.info("asking the user on the terminal", { question: input.question });
    return { answer: await askOnTerminal(input.question, context.signal) };
  },
