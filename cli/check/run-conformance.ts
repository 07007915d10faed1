/**
 * `harness-tool check <provider>`: the conformance suite, run against any provider whatever its
 * language. It launches the provider exactly as the kernel does and runs the rules in order: the
 * go-plugin process (go-plugin-rules.ts), what it declares (schema-rules.ts), Configure
 * (configure-rules.ts), Invoke (invoke-rules.ts), the hook points (hook-rules.ts), then stdout and
 * Shutdown. Resource and interactive tools are invoked only when allowed, with arguments the caller
 * supplies.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { launch, type LaunchedProvider } from "harness-tool/testing";
import type { GetSchemaResponse } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { ProviderCommand } from "../provider/provider-target.js";
import { UsageError } from "../terminal/usage-error.js";
import { argumentsFileProblems } from "./arguments-file.js";
import { ruleResult, type RuleResult } from "./conformance-report.js";
import { acceptsRule, rejectsMissingRequiredRule } from "./configure-rules.js";
import { hookRules } from "./hook-rules.js";
import { cookieRefusedRule, handshakeFailedRules, handshakeRule, healthRule, shutdownRule, stdoutCleanRule } from "./go-plugin-rules.js";
import { cancellationRule, invokeRules, unknownToolRule } from "./invoke-rules.js";
import { describeRule, invariantRules, staticSchemaRule } from "./schema-rules.js";

/** Options of a conformance run. */
export interface ConformanceOptions {
  /** The Configure struct; default {} (or sample values for required attributes). */
  readonly config?: JsonObject;
  /** Invoke resource and interactive tools too, with these arguments by tool name. */
  readonly allowResources?: boolean;
  readonly resourceArguments?: { readonly [tool: string]: JsonObject };
  /** Where resourceArguments came from, for the errors about them; default "--args-file". */
  readonly resourceArgumentsSource?: string;
  /** CallContext.working_directory for every call; default: the current directory. */
  readonly cwd?: string;
  /** The deadline of each DispatchHook the hook rules make; default 10 s. */
  readonly hookTimeoutMs?: number;
}

/** Stops the run (a usage error, exit 2) when the arguments file names no tool or breaks an input schema. */
function refuseBadArguments(schema: GetSchemaResponse, args: { readonly [tool: string]: JsonObject }, source: string): void {
  const problems = argumentsFileProblems(schema, args);
  if (problems.length > 0) throw new UsageError(problems.map((p) => `${source}: ${p}`).join("\n"), { linePerProblem: true });
}

/** The rules from Describe to the last Invoke, on a provider that made its handshake. */
async function serviceRules(launched: LaunchedProvider, options: ConformanceOptions): Promise<{ rows: RuleResult[]; schemaAnswered: boolean }> {
  const rows = [await describeRule(launched)];
  const { row, schema } = await staticSchemaRule(launched);
  rows.push(row);
  if (!schema) return { rows, schemaAnswered: false };
  if (options.resourceArguments) refuseBadArguments(schema, options.resourceArguments, options.resourceArgumentsSource ?? "--args-file");
  rows.push(...invariantRules(schema));
  rows.push(await rejectsMissingRequiredRule(launched, schema));
  const accepted = await acceptsRule(launched, schema, options.config);
  rows.push(accepted.row);
  if (!accepted.configured) {
    rows.push(ruleResult("invoke.*", "Invoke", "skip", "Configure failed"));
    return { rows, schemaAnswered: true };
  }
  rows.push(...(await invokeRules(launched, schema, options)));
  rows.push(await unknownToolRule(launched, options.cwd ?? process.cwd()));
  rows.push(await cancellationRule(launched, schema, options));
  rows.push(
    ...(await hookRules(launched, schema, { cwd: options.cwd ?? process.cwd(), ...(options.hookTimeoutMs ? { timeoutMs: options.hookTimeoutMs } : {}) })),
  );
  return { rows, schemaAnswered: true };
}

/** Runs every rule and returns the rows, in order. */
export async function runConformance(provider: ProviderCommand, options: ConformanceOptions = {}): Promise<RuleResult[]> {
  let launched: LaunchedProvider;
  try {
    launched = await launch(provider.command, { args: provider.args });
  } catch (e) {
    // The executable could not be run at all (spawn's ENOENT, EACCES): a launch problem, not a rule.
    if (typeof (e as NodeJS.ErrnoException).code === "string") throw e;
    return handshakeFailedRules(e);
  }
  let killed = false;
  try {
    const rows = [handshakeRule(launched), await cookieRefusedRule(provider), await healthRule(launched)];
    const service = await serviceRules(launched, options);
    rows.push(...service.rows);
    // Without a schema nothing after it means anything (the provider is killed in `finally`).
    if (!service.schemaAnswered) return rows;
    rows.push(stdoutCleanRule(launched));
    rows.push(await shutdownRule(launched));
    killed = true;
    return rows;
  } finally {
    if (!killed) await launched.kill();
  }
}
