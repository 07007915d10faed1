// The name↔enum tables of kind, risk and error category, derived from the generated enums.
import assert from "node:assert/strict";
import { it } from "node:test";
import { RiskClass, ToolErrorCategory, ToolKind } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { riskClasses, toolKinds, toolSchemaFlagName, toolSchemaFlags } from "../../../runtime/schema/index.js";
import { toolErrorCategories, toolErrorCategoryNames } from "../../../runtime/errors/index.js";

it("kind and risk: the protocol names in wire order, both ways, the zero value unspecified", () => {
  assert.deepEqual(toolKinds.names, ["resource", "data_source", "interactive"]);
  assert.deepEqual(riskClasses.names, ["read_only", "low", "moderate", "high", "critical"]);
  assert.equal(toolKinds.value("data_source"), ToolKind.DATA_SOURCE);
  assert.equal(riskClasses.value("read_only"), RiskClass.READ_ONLY);
  assert.equal(toolKinds.name(ToolKind.INTERACTIVE), "interactive");
  assert.equal(toolKinds.name(ToolKind.UNSPECIFIED), "unspecified");
  assert.equal(riskClasses.name(99), "unspecified", "a value this build does not know");
});

it("error categories: every wire category named; a provider may emit all but process_crashed", () => {
  assert.equal(toolErrorCategories.name(ToolErrorCategory.PROCESS_CRASHED), "process_crashed");
  assert.equal(toolErrorCategories.value("unknown"), ToolErrorCategory.UNKNOWN);
  assert.deepEqual(toolErrorCategoryNames, [
    "invalid_arguments",
    "not_found",
    "permission_denied",
    "execution_failed",
    "timeout",
    "concurrency_conflict",
    "cancelled",
    "unknown",
  ]);
});

it("the ToolSchema flags by their proto field names", () => {
  assert.deepEqual(toolSchemaFlags.map(toolSchemaFlagName), ["streaming", "idempotent", "terminates_turn"]);
});
