/** `harness-tool check <provider>`: runs the conformance suite and prints the report. */
import type { JsonObject } from "@bufbuild/protobuf";
import { renderReport, reportPassed, type RuleResult } from "../check/conformance-report.js";
import { defineCommand } from "./command-definition.js";
import { CommandDeadline, DeadlineExceeded, parseTimeout } from "../provider/command-deadline.js";
import { explainLaunchFailure } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { readJsonObjectFile, workingDirectory } from "./command-options.js";
import { writeWrapped } from "../terminal/error-lines.js";
import { terminalWidth } from "../terminal/terminal-width.js";
import { UsageError } from "../terminal/usage-error.js";

/** Options of the check command. */
export interface CheckOptions {
  readonly configFile?: string;
  readonly allowResources: boolean;
  /** A JSON file: `{ "<tool name>": { ...arguments, "$expect"?: "<outcome>" } }` (cli/check/arguments-file.ts). */
  readonly argsFile?: string;
  readonly cwd: string;
  readonly json: boolean;
  readonly out: NodeJS.WritableStream;
  /** Where the announcement of resource calls goes (default: nowhere). */
  readonly err?: NodeJS.WritableStream;
  /** The overall deadline of the run, in ms; default defaultCheckTimeoutMs. */
  readonly timeoutMs?: number;
}

/** check's `--timeout` when none is given (its flag's default, 5m): the launch and every rule's calls. */
export const defaultCheckTimeoutMs = 300_000;

/** Runs the command; resolves to the exit code (1 when any rule failed). */
export async function checkCommand(provider: ProviderCommand, options: CheckOptions): Promise<number> {
  const resourceArguments = options.argsFile
    ? (readJsonObjectFile(options.argsFile, "--args-file") as { [tool: string]: JsonObject })
    : undefined;
  const { runConformance } = await import("../check/run-conformance.js");
  const config = options.configFile ? readJsonObjectFile(options.configFile, "--config") : undefined;
  const deadline = new CommandDeadline(options.timeoutMs ?? defaultCheckTimeoutMs);
  let results: RuleResult[];
  try {
    results = await deadline.run(() =>
      runConformance(provider, {
        ...(config ? { config, configSource: `--config ${options.configFile}` } : {}),
        allowResources: options.allowResources,
        ...(resourceArguments ? { resourceArguments, resourceArgumentsSource: `--args-file ${options.argsFile}` } : {}),
        cwd: options.cwd,
        onStage: (stage) => deadline.enter(stage),
        launchOptions: deadline.launchOptions(),
        announce: (text) => (options.err ? writeWrapped(options.err, `harness-tool check: ${text}`) : undefined),
      }),
    );
  } catch (e) {
    // A fault in --args-file is the caller's to fix, not a launch problem; a deadline says itself.
    throw e instanceof UsageError || e instanceof DeadlineExceeded ? e : explainLaunchFailure(provider, e);
  }
  options.out.write(
    options.json ? `${JSON.stringify(results, null, 2)}\n` : renderReport(results, terminalWidth(options.out)),
  );
  return reportPassed(results) ? 0 : 1;
}

/** The command line of `harness-tool check`. */
export const checkCommandDefinition = defineCommand({
  name: "check",
  summary: "run the conformance suite against a provider",
  description: [
    "Launches the provider as the kernel does and checks the handshake, the magic cookie, health, Describe, every GetSchema rule, Configure, the shape and output of every Invoke it makes, invalid arguments, cancellation, every hook point it advertises in every mode (answered in the mode's shape or refused as not subscribed; the other points refused) and Shutdown. Exit 1 when any rule fails; exit 2 for a usage or launch problem, or an --args-file that names no tool or breaks a tool's input schema (checked before any call). <provider> may be the sources (src/main.ts, or the repository's folder) while you write the handlers; the kernel launches only the built executable, so check dist/provider.mjs before shipping.",
    'Data-source tools are invoked with sample arguments made from their input schema, or with the arguments an --args-file gives them. A sample call that breaks the stream fails its rule; one that ends in unknown (a handler that threw, a dependency that failed) fails it too, unless its --args-file entry names that outcome: "$expect": "unknown" (or "not_found", "result", any category).',
    `Resource and interactive tools change things or wait for a person, so they are invoked only with --allow-resources, only those named in --args-file, a JSON object of arguments by tool name (e.g. {"save_note": {"title": "t", "text": "b"}}), and only against a working directory and config you name: --allow-resources needs --cwd, and --config when the provider has a config. Before any call, check prints on stderr which tools will run with which arguments.`,
    "--timeout bounds the whole run; when it passes, the provider's process tree is killed and check exits 1 with what hung and the provider's stderr.",
  ].join("\n\n"),
  positionals: [{ name: "provider" }],
  flags: {
    config: { type: "string", value: "file.json", description: "a JSON object file sent as the Configure struct" },
    "allow-resources": {
      type: "boolean",
      description: "invoke resource and interactive tools too (those named in --args-file), in --cwd with --config",
    },
    "args-file": {
      type: "string",
      value: "args.json",
      description: 'arguments by tool name, each with an optional "$expect" outcome',
    },
    cwd: {
      type: "string",
      value: "dir",
      description:
        "CallContext.working_directory of every call (default: the current directory; required with --allow-resources)",
    },
    json: { type: "boolean", description: "print the results as JSON" },
    timeout: {
      type: "string",
      value: "duration",
      default: "5m",
      description: "the deadline of the whole run (e.g. 30s, 10m)",
    },
  },
  providerArgs: true,
  examples: [
    "harness-tool check dist/provider.mjs --config dev-config.json",
    "harness-tool check . --allow-resources --cwd scratch --args-file args.json",
  ],
  run: ({ values, positionals, providerArgs }, { out, err }) => {
    if (values["allow-resources"] && values.cwd === undefined) {
      throw new UsageError("--allow-resources needs --cwd <dir>: a scratch folder the resource tools may change", {
        seeHelp: true,
      });
    }
    return checkCommand(providerTarget(positionals[0] as string, providerArgs), {
      ...(values.config ? { configFile: values.config } : {}),
      allowResources: values["allow-resources"],
      ...(values["args-file"] ? { argsFile: values["args-file"] } : {}),
      cwd: workingDirectory(values.cwd),
      json: values.json,
      out,
      err,
      timeoutMs: parseTimeout(values.timeout),
    });
  },
});
