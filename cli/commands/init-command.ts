/** `harness-tool init`: scaffolds a provider repository. Being written. */
import { UsageError } from "./invoke-command.js";

/** Runs the command; resolves to the exit code. */
export async function initCommand(_argv: readonly string[], _streams: { out: NodeJS.WritableStream; err: NodeJS.WritableStream }): Promise<number> {
  throw new UsageError("init is not available yet");
}
