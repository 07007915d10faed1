/**
 * Configure as the first call of a command that then calls the provider (invoke, hook): the
 * provider's refusal, or how it died, said once for both.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { type HostLogEntry, ProviderCallError, type LaunchedProvider } from "harness-tool/host";
import { providerExitReport } from "../provider/launch-provider.js";
import { UsageError } from "../terminal/usage-error.js";

/** What the provider's config violations say, from the ToolError's details (else its message). */
function configProblems(error: ProviderCallError): string {
  const details = error.toolError?.details as { violations?: { path?: unknown; message?: unknown }[] } | undefined;
  const violations = Array.isArray(details?.violations) ? details.violations : [];
  if (violations.length === 0) return error.toolError?.message ?? error.details;
  const shown = violations.slice(0, 3).map((v) => `${String(v.path ?? "")} ${String(v.message ?? "")}`.trim());
  return `${shown.join("; ")}${violations.length > shown.length ? ` (and ${violations.length - shown.length} more)` : ""}`;
}

/** Where the config came from, and which of the provider's stderr lines the user already saw. */
export interface ConfigureOptions {
  /** The `--config` file, when one was given. */
  readonly configFile?: string | undefined;
  /** Whether a stderr line was already shown (a crash report adds only the others). */
  readonly shown?: (entry: HostLogEntry) => boolean;
  /** Configure's own deadline; default 30 s (a command's overall deadline passes it what is left). */
  readonly timeoutMs?: number;
}

/**
 * Sends Configure. A config the provider refuses is the command line's problem: a UsageError (exit
 * 2) that says which `--config` to pass or fix; a provider that died or failed otherwise is an Error
 * (exit 1) with how it ended.
 */
export async function configureProvider(
  launched: LaunchedProvider,
  config: JsonObject,
  options: ConfigureOptions = {},
): Promise<void> {
  try {
    await launched.configure(config, { timeoutMs: options.timeoutMs ?? 30_000 });
  } catch (e) {
    if (!(e instanceof ProviderCallError)) throw e;
    const exit = e.toolError
      ? undefined
      : await providerExitReport(launched, options.shown ? { shown: options.shown } : {});
    if (exit) throw new Error(`Configure failed: ${exit}`);
    if (!e.toolError) throw new Error(`Configure failed with gRPC status ${e.code}: ${e.details}`);
    throw new UsageError(
      options.configFile === undefined
        ? `the provider needs --config <file.json>: ${configProblems(e)}`
        : `the provider rejected --config ${options.configFile}: ${configProblems(e)}`,
    );
  }
}
