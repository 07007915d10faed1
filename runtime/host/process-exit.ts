/** How a provider process ended, said for a person rather than as `code 127, signal null`. */

/** How the provider process ended. */
export interface ProviderExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A shell's exit codes for a command it could not run (POSIX: 127 not found, 126 found but not
 * executable): a wrapper script or an `#!/usr/bin/env` line that names a missing program ends so.
 */
const shellExitMeanings: { readonly [code: number]: string } = {
  126: "a command it runs could not be executed",
  127: "command not found",
};

/**
 * How `exit` ended, for the end of a sentence: "exit code 1", "command not found (exit code 127)",
 * "killed by SIGKILL".
 */
export function describeExit(exit: ProviderExit): string {
  if (exit.signal) return `killed by ${exit.signal}`;
  if (exit.exitCode === null) return "no exit code";
  const meaning = shellExitMeanings[exit.exitCode];
  return meaning ? `${meaning} (exit code ${exit.exitCode})` : `exit code ${exit.exitCode}`;
}
