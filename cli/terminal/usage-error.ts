/** A mistake in how a command was called: the CLI prints its message and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  /** The mistake is in the command line itself: the message ends by pointing at `--help`. */
  readonly seeHelp: boolean;
  /** Each line of the message is a fault of its own, printed with the command's prefix like the first. */
  readonly linePerProblem: boolean;

  constructor(message: string, options: { seeHelp?: boolean; linePerProblem?: boolean } = {}) {
    super(message);
    this.seeHelp = options.seeHelp ?? false;
    this.linePerProblem = options.linePerProblem ?? false;
  }
}
