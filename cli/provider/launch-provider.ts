/**
 * Launching a provider for a CLI command, with errors that say what to do. What the target names is
 * decided first (provider-target.ts refuses a missing file, a folder without an entry, a file that
 * is not executable); here, what only spawning shows: a name not on PATH, an interpreter that is not
 * installed, a provider that exits before its handshake. Each is a launch problem (exit 2). A
 * provider that dies during a call is described by how it exited and the last lines it wrote to stderr.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { HostLogEntry, LaunchedProvider, LaunchOptions } from "harness-tool/host";
import { type ProviderCommand, ProviderLaunchError } from "./provider-target.js";

/** What spawning `command` failed on (its errno `code`), said for a person; undefined when not a spawn failure. */
function spawnProblem(command: string, code: string | undefined): string | undefined {
  if (code !== "ENOENT" && code !== "ENOEXEC" && code !== "EACCES") return undefined;
  const isPath = command.includes("/") || command.includes(path.sep);
  if (!isPath) {
    return existsSync(command)
      ? `${command} is not on PATH: give its path, ./${command}`
      : `no executable named ${command} on PATH: give the provider's path (e.g. dist/provider.mjs)`;
  }
  if (code === "EACCES") return `${command} is not executable: chmod +x ${command}`;
  if (!existsSync(command)) return `${command} does not exist`;
  const first = readFileSync(command, "utf8").split("\n", 1)[0] ?? "";
  return first.startsWith("#!")
    ? `${command} names an interpreter that is not installed here: ${first}`
    : `${command} has no #! line naming its interpreter (e.g. #!/usr/bin/env node)`;
}

/** Launches `provider` as the kernel does; a start failure becomes a ProviderLaunchError. */
export async function launchProvider(
  provider: ProviderCommand,
  options: LaunchOptions = {},
): Promise<LaunchedProvider> {
  const { launch } = await import("harness-tool/host");
  try {
    return await launch(provider.command, { ...options, args: provider.args });
  } catch (e) {
    throw explainLaunchFailure(provider, e);
  }
}

/** A failed launch as a ProviderLaunchError saying what to do, or the provider's own reason. */
export function explainLaunchFailure(provider: ProviderCommand, error: unknown): ProviderLaunchError {
  const problem = spawnProblem(provider.command, (error as NodeJS.ErrnoException).code);
  if (problem) return new ProviderLaunchError(`cannot launch the provider: ${problem}`);
  const message = (error instanceof Error ? error.message : String(error))
    // A harness-tool provider states why it cannot start where the handshake line would be.
    .replace(/^unrecognized handshake line \([^)]*\): harness-tool: the provider cannot start: /, "")
    // launch() says how it ended: "the provider exited before printing its handshake line: exit code 1; ...".
    .replace(/^the provider exited before printing its handshake line: /, "");
  return new ProviderLaunchError(`the provider did not start: ${message}`);
}

/**
 * When the provider has exited (or exits within `graceMs`), how it ended and the last lines of its
 * stderr that were not shown already (`shown` says which were, as they arrived); undefined while it runs.
 */
export async function providerExitReport(
  launched: LaunchedProvider,
  options: { graceMs?: number; shown?: (entry: HostLogEntry) => boolean } = {},
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const exit = await Promise.race([
    launched.exited,
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), options.graceMs ?? 1000))),
  ]);
  clearTimeout(timer);
  if (!exit) return undefined;
  const { describeExit } = await import("harness-tool/host");
  const how = `the provider exited during the call: ${describeExit(exit)}`;
  const unseen = launched.stderr.filter((entry) => !options.shown?.(entry));
  if (unseen.length === 0 && launched.stderr.length > 0) return `${how}; its stderr is above`;
  const tail = unseen.slice(-10).map((e) => `  ${e.raw}`);
  const lead =
    unseen.length < launched.stderr.length
      ? "the last lines of its stderr not shown above"
      : "the last lines of its stderr";
  return `${how}; ${tail.length > 0 ? `${lead}:\n${tail.join("\n")}` : "it wrote nothing to stderr"}`;
}
