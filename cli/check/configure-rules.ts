/**
 * The rules about Configure: a config missing a required attribute is refused with a ToolError,
 * and the given config (or sample values for the required attributes) is accepted.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { AttrType } from "harness-tool/generated/pluggableharness/config/v1/config_pb.js";
import type { GetSchemaResponse } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { ProviderCallError, type LaunchedProvider } from "harness-tool/host";
import { ruleResult, type RuleResult } from "./conformance-report.js";
import { unaryTimeout } from "./schema-rules.js";

/** Sample values for the config's required attributes (used when no --config is given). */
export function sampleConfig(schema: GetSchemaResponse): JsonObject {
  const out: JsonObject = {};
  for (const a of schema.configSchema?.attributes ?? []) {
    if (!a.required) continue;
    switch (a.type) {
      case AttrType.NUMBER:
        out[a.name] = 1;
        break;
      case AttrType.BOOL:
        out[a.name] = false;
        break;
      case AttrType.LIST_STRING:
      case AttrType.LIST_NUMBER:
        out[a.name] = [];
        break;
      case AttrType.MAP_STRING:
      case AttrType.OBJECT:
        out[a.name] = {};
        break;
      default:
        out[a.name] = "example";
    }
  }
  return out;
}

/** Configure({}) must be refused, with INVALID_ARGUMENT or FAILED_PRECONDITION and a ToolError, when an attribute is required. */
export async function rejectsMissingRequiredRule(
  launched: LaunchedProvider,
  schema: GetSchemaResponse,
): Promise<RuleResult> {
  const rule = "configure.rejects-missing-required";
  const required = (schema.configSchema?.attributes ?? []).filter((a) => a.required);
  if (required.length === 0)
    return ruleResult(rule, "Configure", "skip", "the config schema has no required attribute");
  try {
    await launched.configure({}, unaryTimeout);
    return ruleResult(
      rule,
      "Configure",
      "fail",
      `Configure({}) was accepted though ${required.map((a) => a.name).join(", ")} are required`,
    );
  } catch (e) {
    if (!(e instanceof ProviderCallError)) return ruleResult(rule, "Configure", "fail", (e as Error).message);
    const expectedCode = e.code === 3 || e.code === 9;
    if (expectedCode && e.toolError !== undefined)
      return ruleResult(rule, "Configure", "pass", `rejected with status ${e.code}: ${e.toolError.message}`);
    return ruleResult(
      rule,
      "Configure",
      "fail",
      `rejected with status ${e.code} but ${e.toolError ? "" : "no ToolError in the status details"}${expectedCode ? "" : " (expected INVALID_ARGUMENT or FAILED_PRECONDITION)"}`,
    );
  }
}

/** Configure with `given` (or sample values) must be accepted; whether it was, and its row. */
export async function acceptsRule(
  launched: LaunchedProvider,
  schema: GetSchemaResponse,
  given: JsonObject | undefined,
): Promise<{ row: RuleResult; configured: boolean }> {
  try {
    await launched.configure(given ?? sampleConfig(schema), unaryTimeout);
    return {
      row: ruleResult(
        "configure.accepts",
        "Configure",
        "pass",
        given ? "the given config" : "sample values for the required attributes",
      ),
      configured: true,
    };
  } catch (e) {
    const why =
      e instanceof ProviderCallError
        ? `Configure rejected the config: ${e.toolError?.message ?? e.details}`
        : (e as Error).message;
    return { row: ruleResult("configure.accepts", "Configure", "fail", why), configured: false };
  }
}
