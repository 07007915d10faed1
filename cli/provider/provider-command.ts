/**
 * The `<provider command>` the CLI launches: an executable started directly, as the kernel starts
 * providers (no shell). Arguments for the provider itself follow a `--` on the command line.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../commands/usage-error.js";

/** The executable and its arguments. */
export interface ProviderCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/** The working directory a call runs in: it must exist, as it would for the kernel. */
export function workingDirectory(given: string | undefined): string {
  if (given === undefined) return process.cwd();
  const resolved = path.resolve(given);
  let isDirectory = false;
  try {
    isDirectory = statSync(resolved).isDirectory();
  } catch {
    throw new UsageError(`--cwd ${given}: no such directory`);
  }
  if (!isDirectory) throw new UsageError(`--cwd ${given} is not a directory`);
  return resolved;
}
