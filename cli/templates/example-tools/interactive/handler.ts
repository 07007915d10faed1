  async askUser(input, context) {
    // A real provider reaches its user here (a terminal, a chat, a web form). This example reads
    // one line from the terminal the provider was started from, when there is one.
    context.log.info("asking the user", { question: input.question });
    return { answer: await readAnswer(input.question, context.signal) };
  },
