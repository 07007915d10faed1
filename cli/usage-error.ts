/** A mistake in how a command was called: the CLI prints its message and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
