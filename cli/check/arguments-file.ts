/**
 * `check --args-file`: the file is checked against the tools the provider declares before any
 * call is made, so a misspelt tool name is not silently ignored and arguments that break a tool's
 * input schema are not passed off as the provider refusing schema-valid ones. One line per fault.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { GetSchemaResponse } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { isToolSchemaDocument, jsonSchemaFromWire, validateValue } from "harness-tool";
import { nearestName } from "../terminal/fault-wording.js";

/** Shown at most, per tool: the rest are counted. */
const maxViolationsPerTool = 5;

/** What is wrong with `args` (arguments by tool name) for the tools of `schema`, one line each; empty when nothing is. */
export function argumentsFileProblems(schema: GetSchemaResponse, args: { readonly [tool: string]: JsonObject }): string[] {
  const problems: string[] = [];
  const names = schema.tools.map((t) => t.name);
  for (const [key, value] of Object.entries(args)) {
    const tool = schema.tools.find((t) => t.name === key);
    if (!tool) {
      const near = nearestName(key, names);
      problems.push(`${JSON.stringify(key)} names no tool; ${near ? `did you mean ${near}?` : `the tools are ${names.join(", ")}`}`);
      continue;
    }
    const input = tool.inputSchema ? (jsonSchemaFromWire(tool.inputSchema) as unknown) : undefined;
    // A schema outside the subset is a schema row's failure; the arguments cannot be judged by it.
    if (!isToolSchemaDocument(input)) continue;
    const violations = validateValue(input, value);
    for (const v of violations.slice(0, maxViolationsPerTool)) problems.push(`${key}: ${v.path === "" ? "the arguments" : v.path} ${v.message}`);
    if (violations.length > maxViolationsPerTool) problems.push(`${key}: and ${violations.length - maxViolationsPerTool} more violations`);
  }
  return problems;
}
