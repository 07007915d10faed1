/**
 * The `<provider command>` the CLI launches: an executable started directly, as the kernel starts
 * providers (no shell). Arguments for the provider itself follow a `--`.
 */

/** The executable and its arguments. */
export interface ProviderCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** Splits argv at the first `--`: what comes after is the provider's own arguments. */
export function splitProviderArgs(argv: readonly string[]): { cli: string[]; providerArgs: string[] } {
  const at = argv.indexOf("--");
  return at < 0 ? { cli: [...argv], providerArgs: [] } : { cli: argv.slice(0, at), providerArgs: argv.slice(at + 1) };
}
