/**
 * `harness-tool check <provider>`: the conformance suite, run against any provider whatever its
 * language. It launches the provider exactly as the kernel does and runs the rules in order: the
 * go-plugin process (go-plugin-rules.ts), what it declares (schema-rules.ts), Configure
 * (configure-rules.ts), Preview (preview-rules.ts), Invoke (invoke-rules.ts), the hook points (hook-rules.ts), then stdout and
 * Shutdown. Resource and interactive tools are invoked only when allowed, with arguments the caller
 * supplies.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { launch, type LaunchedProvider, type LaunchOptions } from "harness-tool/host";
import { type GetSchemaResponse, ToolKind } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { ProviderCommand } from "../provider/provider-target.js";
import { UsageError } from "../terminal/usage-error.js";
import { argumentsEntry, argumentsFileProblems } from "./arguments-file.js";
import { ruleResult, type RuleResult } from "./conformance-report.js";
import { acceptsRule, rejectsMissingRequiredRule } from "./configure-rules.js";
import { hookRules } from "./hook-rules.js";
import {
  cookieRefusedRule,
  handshakeFailedRules,
  handshakeRule,
  healthRule,
  shutdownRule,
  stdoutCleanRule,
} from "./go-plugin-rules.js";
import { cancellationRule, invokeRules, unknownToolRule } from "./invoke-rules.js";
import { previewRules } from "./preview-rules.js";
import { describeRules, invariantRules, staticSchemaRule } from "./schema-rules.js";

/** Options of a conformance run. */
export interface ConformanceOptions {
  /** The Configure struct; default {} (or sample values for required attributes). */
  readonly config?: JsonObject;
  /** Invoke resource and interactive tools too, those with arguments in resourceArguments. */
  readonly allowResources?: boolean;
  /** Arguments by tool name (any kind; a data-source tool's replace its sample), each with an optional `$expect` (arguments-file.ts). */
  readonly resourceArguments?: { readonly [tool: string]: JsonObject };
  /** Where the config came from (`--config dev.json`), for the announcement of resource calls. */
  readonly configSource?: string;
  /** Where resourceArguments came from, for the errors about them; default "--args-file". */
  readonly resourceArgumentsSource?: string;
  /** CallContext.working_directory for every call; default: the current directory. */
  readonly cwd?: string;
  /** The deadline of each DispatchHook the hook rules make; default 10 s. */
  readonly hookTimeoutMs?: number;
  /** Told what the run does next ("Configure", "the sample call to read_note"): the check command's deadline names it. */
  readonly onStage?: (stage: string) => void;
  /** With allowResources: told, before any call, which resource and interactive tools will run with which arguments. */
  readonly announce?: (text: string) => void;
  /** Options added to the launch (the deadline's: the spawned pid, the stderr lines, the handshake bound). */
  readonly launchOptions?: Pick<LaunchOptions, "onSpawn" | "onStderrLine" | "handshakeTimeoutMs">;
}

/** Stops the run (a usage error, exit 2) when the arguments file names no tool or breaks an input schema. */
function refuseBadArguments(
  schema: GetSchemaResponse,
  args: { readonly [tool: string]: JsonObject },
  source: string,
): void {
  const problems = argumentsFileProblems(schema, args);
  if (problems.length > 0)
    throw new UsageError(problems.map((p) => `${source}: ${p}`).join("\n"), { linePerProblem: true });
}

/**
 * Before any call with --allow-resources: a provider with a config runs its resource tools only
 * against a config the caller named (never sample values), and the caller is told which tools will
 * run, with which arguments, where.
 */
function announceResourceCalls(schema: GetSchemaResponse, options: ConformanceOptions): void {
  if ((schema.configSchema?.attributes.length ?? 0) > 0 && options.config === undefined) {
    throw new UsageError("--allow-resources needs --config <file.json>: a config for test data, not your own");
  }
  const running = schema.tools.filter(
    (t) => t.kind !== ToolKind.DATA_SOURCE && argumentsEntry(options.resourceArguments, t.name),
  );
  const lines = running.map(
    (t) => `  ${t.name} ${JSON.stringify(argumentsEntry(options.resourceArguments, t.name)?.args)}`,
  );
  const where = `in ${options.cwd ?? process.cwd()}${options.configSource ? ` with ${options.configSource}` : ""}`;
  options.announce?.(
    running.length === 0
      ? `--allow-resources: no resource or interactive tool has arguments in the --args-file; none will run\n`
      : `--allow-resources: these resource and interactive tools will run ${where} (each also with invalid arguments, which it must refuse):\n${lines.join("\n")}\n`,
  );
}

/** The rules from Describe to the last Invoke, on a provider that made its handshake. */
async function serviceRules(
  launched: LaunchedProvider,
  options: ConformanceOptions,
): Promise<{ rows: RuleResult[]; schemaAnswered: boolean }> {
  const stage = options.onStage ?? (() => {});
  stage("Describe");
  const rows = await describeRules(launched);
  stage("GetSchema");
  const { row, schema } = await staticSchemaRule(launched);
  rows.push(row);
  if (!schema) return { rows, schemaAnswered: false };
  if (options.resourceArguments)
    refuseBadArguments(schema, options.resourceArguments, options.resourceArgumentsSource ?? "--args-file");
  if (options.allowResources) announceResourceCalls(schema, options);
  rows.push(...invariantRules(schema));
  stage("Configure");
  rows.push(await rejectsMissingRequiredRule(launched, schema));
  const accepted = await acceptsRule(launched, schema, options.config);
  rows.push(accepted.row);
  if (!accepted.configured) {
    rows.push(ruleResult("invoke.*", "Invoke", "skip", "Configure failed"));
    return { rows, schemaAnswered: true };
  }
  rows.push(...(await previewRules(launched, schema, options)));
  rows.push(...(await invokeRules(launched, schema, options)));
  stage("the call to an unknown tool");
  rows.push(await unknownToolRule(launched, options.cwd ?? process.cwd()));
  stage("the cancellation rule");
  rows.push(await cancellationRule(launched, schema, options));
  stage("the hook rules");
  rows.push(
    ...(await hookRules(launched, schema, {
      cwd: options.cwd ?? process.cwd(),
      ...(options.hookTimeoutMs ? { timeoutMs: options.hookTimeoutMs } : {}),
    })),
  );
  return { rows, schemaAnswered: true };
}

/** Runs every rule and returns the rows, in order. */
export async function runConformance(
  provider: ProviderCommand,
  options: ConformanceOptions = {},
): Promise<RuleResult[]> {
  let launched: LaunchedProvider;
  try {
    options.onStage?.("the launch");
    launched = await launch(provider.command, { ...options.launchOptions, args: provider.args });
  } catch (e) {
    // The executable could not be run at all (spawn's ENOENT, EACCES): a launch problem, not a rule.
    if (typeof (e as NodeJS.ErrnoException).code === "string") throw e;
    return handshakeFailedRules(e);
  }
  let killed = false;
  try {
    options.onStage?.("the handshake rules");
    const rows = [handshakeRule(launched), await cookieRefusedRule(provider), await healthRule(launched)];
    const service = await serviceRules(launched, options);
    rows.push(...service.rows);
    // Without a schema nothing after it means anything (the provider is killed in `finally`).
    if (!service.schemaAnswered) return rows;
    rows.push(stdoutCleanRule(launched));
    options.onStage?.("Shutdown");
    rows.push(await shutdownRule(launched));
    killed = true;
    return rows;
  } finally {
    if (!killed) await launched.kill();
  }
}
