/** `harness-tool check <provider>`: runs the conformance suite and prints the report. */
import type { JsonObject } from "@bufbuild/protobuf";
import { renderReport, reportPassed, type RuleResult } from "../check/conformance-report.js";
import { defineCommand } from "./command-definition.js";
import { explainLaunchFailure } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { readJsonObjectFile, workingDirectory } from "./command-options.js";
import { terminalWidth } from "../terminal/terminal-width.js";
import { UsageError } from "../terminal/usage-error.js";

/** Options of the check command. */
export interface CheckOptions {
  readonly configFile?: string;
  readonly allowResources: boolean;
  /** A JSON file: `{ "<tool name>": { ...arguments } }` for resource and interactive tools. */
  readonly argsFile?: string;
  readonly cwd: string;
  readonly json: boolean;
  readonly out: NodeJS.WritableStream;
}

/** Runs the command; resolves to the exit code (1 when any rule failed). */
export async function checkCommand(provider: ProviderCommand, options: CheckOptions): Promise<number> {
  const resourceArguments = options.argsFile ? (readJsonObjectFile(options.argsFile, "--args-file") as { [tool: string]: JsonObject }) : undefined;
  if (resourceArguments && !options.allowResources) throw new UsageError("--args-file only matters with --allow-resources");
  const { runConformance } = await import("../check/run-conformance.js");
  const config = options.configFile ? readJsonObjectFile(options.configFile, "--config") : undefined;
  let results: RuleResult[];
  try {
    results = await runConformance(provider, {
      ...(config ? { config } : {}),
      allowResources: options.allowResources,
      ...(resourceArguments ? { resourceArguments, resourceArgumentsSource: `--args-file ${options.argsFile}` } : {}),
      cwd: options.cwd,
    });
  } catch (e) {
    // A fault in --args-file is the caller's to fix, not a launch problem.
    throw e instanceof UsageError ? e : explainLaunchFailure(provider, e);
  }
  options.out.write(options.json ? `${JSON.stringify(results, null, 2)}\n` : renderReport(results, terminalWidth(options.out)));
  return reportPassed(results) ? 0 : 1;
}

/** The command line of `harness-tool check`. */
export const checkCommandDefinition = defineCommand({
  name: "check",
  summary: "run the conformance suite against a provider",
  description: [
    "Launches the provider as the kernel does and checks the handshake, the magic cookie, health, Describe, every GetSchema rule, Configure, the shape and output of every Invoke it makes, invalid arguments, cancellation, every hook point it advertises in every mode (answered in the mode's shape or refused as not subscribed; the other points refused) and Shutdown. Exit 1 when any rule fails; exit 2 for a usage or launch problem, or an --args-file that names no tool or breaks a tool's input schema (checked before any call). <provider> may be the sources (src/main.ts, or the repository's folder) while you write the handlers; the kernel launches only the built executable, so check dist/provider.mjs before shipping.",
    `Data-source tools are invoked with sample arguments. Resource and interactive tools change things or wait for a person, so they are invoked only with --allow-resources, and only those named in --args-file, a JSON object of arguments by tool name, e.g. for the scaffold's save_note: {"save_note": {"title": "t", "text": "b"}}.`,
  ].join("\n\n"),
  positionals: [{ name: "provider" }],
  flags: {
    config: { type: "string", value: "file.json", description: "a JSON object file sent as the Configure struct" },
    "allow-resources": { type: "boolean", description: "invoke resource and interactive tools too (those named in --args-file)" },
    "args-file": { type: "string", value: "args.json", description: "arguments for resource and interactive tools, by tool name" },
    cwd: { type: "string", value: "dir", description: "CallContext.working_directory of every call (default: the current directory)" },
    json: { type: "boolean", description: "print the results as JSON" },
  },
  providerArgs: true,
  examples: ["harness-tool check dist/provider.mjs --config dev-config.json", "harness-tool check dist/provider.mjs --allow-resources --args-file args.json"],
  run: ({ values, positionals, providerArgs }, { out }) => {
    return checkCommand(providerTarget(positionals[0] as string, providerArgs), {
      ...(values.config ? { configFile: values.config } : {}),
      allowResources: values["allow-resources"],
      ...(values["args-file"] ? { argsFile: values["args-file"] } : {}),
      cwd: workingDirectory(values.cwd),
      json: values.json,
      out,
    });
  },
});
