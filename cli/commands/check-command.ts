/** `harness-tool check <provider>`: runs the conformance suite and prints the report. */
import { readFileSync } from "node:fs";
import type { JsonObject } from "@bufbuild/protobuf";
import { renderReport, reportPassed } from "../check/conformance-report.js";
import { runConformance } from "../check/run-conformance.js";
import type { ProviderCommand } from "../provider-command.js";
import { UsageError } from "../usage-error.js";

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

function readJsonObject(file: string, flag: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new UsageError(`cannot read ${flag} ${file}: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new UsageError(`${flag} ${file} must hold a JSON object`);
  return value as JsonObject;
}

/** Runs the command; resolves to the exit code (1 when any rule failed). */
export async function checkCommand(provider: ProviderCommand, options: CheckOptions): Promise<number> {
  const resourceArguments = options.argsFile ? (readJsonObject(options.argsFile, "--args-file") as { [tool: string]: JsonObject }) : undefined;
  if (resourceArguments && !options.allowResources) throw new UsageError("--args-file only matters with --allow-resources");
  const results = await runConformance(provider, {
    ...(options.configFile ? { config: readJsonObject(options.configFile, "--config") } : {}),
    allowResources: options.allowResources,
    ...(resourceArguments ? { resourceArguments } : {}),
    cwd: options.cwd,
  });
  options.out.write(options.json ? `${JSON.stringify(results, null, 2)}\n` : renderReport(results));
  return reportPassed(results) ? 0 : 1;
}
