/** Asks on the terminal the provider was started from; without one, answers that nobody is there. */
async function readAnswer(question: string, signal: AbortSignal): Promise<string> {
  if (!process.stdin.isTTY) return "(no user is attached to this provider)";
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await terminal.question(`${question} `, { signal });
  } finally {
    terminal.close();
  }
}
