/**
 * `check --args-file`: arguments by tool name, each entry optionally saying which outcome the call
 * is expected to end in (`"$expect": "not_found"`, `"unknown"`, `"result"`; `$` cannot begin a proto
 * field name, so the key never collides with a generated tool's argument). The file is checked
 * against the tools the provider declares before any call is made, so a misspelt tool name is not
 * silently ignored and arguments that break a tool's input schema are not passed off as the
 * provider refusing schema-valid ones. One line per fault.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { GetSchemaResponse } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { isToolSchemaDocument, jsonSchemaFromWire, validateValue } from "harness-tool/schema";
import { toolErrorCategoryNames } from "harness-tool/errors";
import { nearestName } from "../terminal/fault-wording.js";

/** Shown at most, per tool: the rest are counted. */
const maxViolationsPerTool = 5;

/** The key of an entry that names the expected outcome. */
export const expectKey = "$expect";

/** What a call may be expected to end in: a result, or an error of one category. */
export const expectableOutcomes: readonly string[] = ["result", ...toolErrorCategoryNames];

/** One entry of the file: the call's arguments, and the outcome expected of it (undefined: a result or any error but unknown). */
export interface ArgumentsEntry {
  readonly args: JsonObject;
  readonly expect: string | undefined;
}

/** The entry for `tool` in `file`, its `$expect` taken out of the arguments; undefined when the file has none. */
export function argumentsEntry(
  file: { readonly [tool: string]: JsonObject } | undefined,
  tool: string,
): ArgumentsEntry | undefined {
  const entry = file?.[tool];
  if (entry === undefined) return undefined;
  // Not an object: left as it is, for the input schema's check to refuse.
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return { args: entry, expect: undefined };
  const { [expectKey]: expect, ...args } = entry;
  return { args, expect: typeof expect === "string" ? expect : undefined };
}

/** What is wrong with `args` (arguments by tool name) for the tools of `schema`, one line each; empty when nothing is. */
export function argumentsFileProblems(
  schema: GetSchemaResponse,
  args: { readonly [tool: string]: JsonObject },
): string[] {
  const problems: string[] = [];
  const names = schema.tools.map((t) => t.name);
  for (const key of Object.keys(args)) {
    const tool = schema.tools.find((t) => t.name === key);
    if (!tool) {
      const near = nearestName(key, names);
      problems.push(
        `${JSON.stringify(key)} names no tool; ${near ? `did you mean ${near}?` : `the tools are ${names.join(", ")}`}`,
      );
      continue;
    }
    const expect = argumentsEntry(args, key)?.args === args[key] ? undefined : (args[key] as JsonObject)[expectKey];
    if (expect !== undefined && (typeof expect !== "string" || !expectableOutcomes.includes(expect))) {
      problems.push(
        `${key}: ${expectKey} ${JSON.stringify(expect)} is no outcome; give one of ${expectableOutcomes.join(", ")}`,
      );
    }
    const input = tool.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
    // A schema outside the subset is a schema row's failure; the arguments cannot be judged by it.
    if (!isToolSchemaDocument(input)) continue;
    const violations = validateValue(input, (argumentsEntry(args, key) as ArgumentsEntry).args);
    for (const v of violations.slice(0, maxViolationsPerTool))
      problems.push(`${key}: ${v.path === "" ? "the arguments" : v.path} ${v.message}`);
    if (violations.length > maxViolationsPerTool)
      problems.push(`${key}: and ${violations.length - maxViolationsPerTool} more violations`);
  }
  return problems;
}
