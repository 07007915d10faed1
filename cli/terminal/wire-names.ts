/** Readable names for the wire enums the CLI prints. */
import { ToolErrorCategory, RiskClass, ToolKind, type ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";

/** "data_source", "resource", ... or "unspecified". */
export function kindName(kind: ToolKind): string {
  return (
    ({ [ToolKind.RESOURCE]: "resource", [ToolKind.DATA_SOURCE]: "data_source", [ToolKind.INTERACTIVE]: "interactive" } as Record<number, string>)[kind] ??
    "unspecified"
  );
}

/** "read_only", "low", ... or "unspecified". */
export function riskName(risk: RiskClass): string {
  return (
    (
      {
        [RiskClass.READ_ONLY]: "read_only",
        [RiskClass.LOW]: "low",
        [RiskClass.MODERATE]: "moderate",
        [RiskClass.HIGH]: "high",
        [RiskClass.CRITICAL]: "critical",
      } as Record<number, string>
    )[risk] ?? "unspecified"
  );
}

/** The category's protocol name, e.g. "invalid_arguments". */
export function categoryName(category: ToolErrorCategory): string {
  const name = ToolErrorCategory[category];
  return name === undefined ? `category ${category}` : name.toLowerCase();
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
  if (!d) return "-";
  const seconds = Number(d.seconds) + d.nanos / 1e9;
  return `${seconds}s`;
}
