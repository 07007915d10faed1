  async runCommand(input, context) {
    const exit = await context.spawn(input.command, input.args ?? []);
    return { exit_code: exit.exitCode };
  },
