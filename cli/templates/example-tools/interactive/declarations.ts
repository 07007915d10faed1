/**
 * The terminal the provider was started from (/dev/tty, its controlling terminal), which
 * `harness-tool invoke` and `inspect` share with it when they run in one. The tool protocol gives a
 * provider no way to reach the kernel's frontend (the interactive prompt is the kernel's to show),
 * so under the kernel a real provider asks through a channel of its own (a chat, a web form); with
 * no terminal at all (CI, a headless kernel) this fails with a ToolError that says so.
 */
function openTerminal(): { input: ReadStream; output: WriteStream } {
  let input: number | undefined;
  try {
    input = openSync("/dev/tty", "r");
    return { input: new ReadStream(input), output: new WriteStream(openSync("/dev/tty", "w")) };
  } catch {
    if (input !== undefined) closeSync(input);
    throw new ToolError("execution_failed", "ask_user: nobody to ask: the provider has no terminal (run it from one, or ask through a channel it owns)");
  }
}

/** Writes the question on the terminal and waits for one line (the terminal's own line editing). */
async function askOnTerminal(question: string, signal: AbortSignal): Promise<string> {
  const { input, output } = openTerminal();
  const terminal = createInterface({ input, output, terminal: false });
  try {
    return await terminal.question(`\n${question}\n> `, { signal });
  } finally {
    terminal.close();
    input.destroy();
    output.destroy();
  }
}
