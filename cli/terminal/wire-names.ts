/** Readable names for the wire enums the CLI prints, from the runtime's tables (derived from the generated enums). */
import { durationMs } from "@bufbuild/protobuf/wkt";
import { toolErrorCategories } from "harness-tool/errors";
import type {
  RiskClass,
  ToolErrorCategory,
  ToolKind,
  ToolSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { riskClasses, toolKinds } from "harness-tool/schema";

/** "data_source", "resource", ... or "unspecified". */
export function kindName(kind: ToolKind): string {
  return toolKinds.name(kind);
}

/** "read_only", "low", ... or "unspecified". */
export function riskName(risk: RiskClass): string {
  return riskClasses.name(risk);
}

/** The category's protocol name, e.g. "invalid_arguments" (the kernel's "process_crashed" too). */
export function categoryName(category: ToolErrorCategory): string {
  const name = toolErrorCategories.name(category);
  return name === "unspecified" && category !== 0 ? `category ${category}` : name;
}

/** ToolSchema.concurrency as a short phrase. */
export function concurrencyText(tool: ToolSchema): string {
  const c = tool.concurrency;
  if (!c) return "-";
  if (!c.safe) return "exclusive";
  return c.keyFields.length > 0 ? `by ${c.keyFields.join(",")}` : "parallel";
}

/** A Duration as "30s" / "1.5s", or "-". */
export function timeoutText(tool: ToolSchema): string {
  const d = tool.defaultTimeout;
  return d ? `${durationMs(d) / 1000}s` : "-";
}
