/**
 * The `harness-tool` command line. Each command resolves to an exit code; usage mistakes print a
 * short explanation and exit 2, never a stack trace.
 */
import type { CommandDefinition, CommandStreams } from "./commands/command-definition.js";
import { parseCommandLine, renderCommandHelp, renderOverview } from "./commands/command-line.js";
import { bundleCommandDefinition } from "./commands/bundle-command.js";
import { checkCommandDefinition } from "./commands/check-command.js";
import { hookCommandDefinition } from "./commands/hook-command.js";
import { initCommandDefinition } from "./commands/init-command.js";
import { inspectCommandDefinition } from "./commands/inspect-command.js";
import { releaseCommandDefinition } from "./commands/release-command.js";
import { invokeCommandDefinition } from "./commands/invoke-command.js";
import { kernelConfigCommandDefinition } from "./commands/kernel-config-command.js";
import { mcpImportCommandDefinition } from "./commands/mcp-import-command.js";
import { diffCommandDefinition } from "./commands/diff-command.js";
import { docsCommandDefinition } from "./commands/docs-command.js";
import { schemaCommandDefinition } from "./commands/schema-command.js";
import { syncCommandDefinition } from "./commands/sync-command.js";
import { packageVersion } from "./templates/cli-package.js";
import { nearestName } from "./terminal/fault-wording.js";
import { errorText, errorWidth } from "./terminal/error-lines.js";
import { terminalWidth } from "./terminal/terminal-width.js";
import { UsageError } from "./terminal/usage-error.js";

/**
 * The command table, in the order `harness-tool --help` lists it.
 *
 * To add a command: in cli/commands/<name>-command.ts export
 * `const <name>CommandDefinition = defineCommand({ name, summary, positionals, flags, examples, run })`
 * (see cli/commands/command-definition.ts), import it here and add it to this list. Parsing, `--help`, usage
 * errors and exit codes come from the declaration; nothing else in this file changes. Keep a
 * command module's top-level imports light and import heavy dependencies (grpc-js, ts-morph,
 * esbuild) inside `run`: every command module loads for `harness-tool --help`.
 */
export const commands: readonly CommandDefinition[] = [
  initCommandDefinition,
  schemaCommandDefinition,
  invokeCommandDefinition,
  hookCommandDefinition,
  checkCommandDefinition,
  syncCommandDefinition,
  bundleCommandDefinition,
  releaseCommandDefinition,
  inspectCommandDefinition,
  kernelConfigCommandDefinition,
  diffCommandDefinition,
  docsCommandDefinition,
  mcpImportCommandDefinition,
];

/** "; did you mean invoke?" for a near miss, else nothing (the help the error points at lists them all). */
function didYouMean(name: string): string {
  const near = nearestName(
    name,
    commands.map((c) => c.name),
  );
  return near === undefined ? "" : `; did you mean ${near}?`;
}

async function run(argv: readonly string[], streams: CommandStreams): Promise<number> {
  const [name, ...rest] = argv;
  const width = terminalWidth(streams.out);
  switch (name) {
    case undefined:
      streams.err.write(renderOverview(commands, terminalWidth(streams.err)));
      return 2;
    case "help":
    case "--help":
    case "-h": {
      const topic = name === "help" ? rest[0] : undefined;
      const command = topic === undefined ? undefined : commands.find((c) => c.name === topic);
      if (topic !== undefined && !command)
        throw new UsageError(`no command ${JSON.stringify(topic)}${didYouMean(topic)}`, { seeHelp: true });
      streams.out.write(command ? renderCommandHelp(command, width) : renderOverview(commands, width));
      return 0;
    }
    case "--version":
    case "-v":
    case "version":
      streams.out.write(`${packageVersion()}\n`);
      return 0;
  }
  // A command of two words (`mcp import`) is found by both.
  const twoWords = commands.find((c) => c.name === `${name} ${rest[0]}`);
  if (twoWords) rest.shift();
  const command = twoWords ?? commands.find((c) => c.name === name);
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(name)}${didYouMean(name)}`, { seeHelp: true });
  try {
    const parsed = parseCommandLine(command, rest);
    if (parsed.help) {
      streams.out.write(renderCommandHelp(command, width));
      return 0;
    }
    return await command.run(parsed, streams);
  } catch (e) {
    throw new CommandFailure(command.name, e);
  }
}

/** An error on its way out of a command, with the command's name for the message. */
class CommandFailure extends Error {
  constructor(
    readonly command: string,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Runs the CLI with `argv` (without node and the script) and returns the exit code. */
export async function main(
  argv: readonly string[],
  streams: CommandStreams = { out: process.stdout, err: process.stderr },
): Promise<number> {
  try {
    return await run(argv, streams);
  } catch (e) {
    const command = e instanceof CommandFailure ? e.command : undefined;
    const cause = e instanceof CommandFailure ? e.cause : e;
    const prefix = command ? `harness-tool ${command}` : "harness-tool";
    // Every fault path ends here, wrapped at the terminal's width (cli/terminal/error-lines.ts).
    streams.err.write(errorText(prefix, cause, errorWidth(streams.err)));
    if (cause instanceof UsageError) return 2;
    // An unexpected failure: its message, not a stack trace, unless asked for one.
    if (process.env["HARNESS_TOOL_DEBUG"] && cause instanceof Error) streams.err.write(`${cause.stack}\n`);
    return 1;
  }
}
