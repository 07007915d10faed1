/**
 * The plain, erased model of one tool's declaration: what the plugin resolves from proto options,
 * what the builder produces, and what `harness-tool check` decodes from a provider's GetSchema.
 * The invariants (invariants.ts) are written once against this shape.
 */
import type { JsonSchemaObject } from "./json-schema.js";

/** ToolSchema.kind, by its protocol name. */
export type ToolKindName = "resource" | "data_source" | "interactive";

/** ToolSchema.risk, by its protocol name. */
export type RiskName = "read_only" | "low" | "moderate" | "high" | "critical";

/** The risks a resource may declare: every class except read_only. */
export type ResourceRiskName = Exclude<RiskName, "read_only">;

/** The kind names in wire order (TOOL_KIND_RESOURCE = 1 ...). */
export const toolKindNames: readonly ToolKindName[] = ["resource", "data_source", "interactive"];

/** The risk names in wire order (RISK_CLASS_READ_ONLY = 1 ...). */
export const riskNames: readonly RiskName[] = ["read_only", "low", "moderate", "high", "critical"];

/** ToolSchema.concurrency. */
export interface ConcurrencyDeclaration {
  /** False takes a provider-wide lock; true allows parallel calls, limited by `keyFields`. */
  readonly safe: boolean;
  /** With `safe`: calls whose named top-level input fields are equal run one at a time. */
  readonly keyFields?: readonly string[];
}

/**
 * One tool as declared. `kind` and `risk` may be "unspecified" only in declarations decoded from
 * a wire ToolSchema (the zero enum value), so the invariants can name that mistake.
 */
export interface ToolDeclaration {
  readonly name: string;
  readonly kind: ToolKindName | "unspecified";
  readonly risk: RiskName | "unspecified";
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
  /** Invoke may emit output_chunk, progress or partial_result before the terminal event. */
  readonly streaming: boolean;
  /** The tool runs a child process: it may emit output_chunk and must emit one exit_status. */
  readonly processBacked: boolean;
  /** Absent only for interactive tools. */
  readonly concurrency?: ConcurrencyDeclaration;
  /** ToolSchema.default_timeout in milliseconds; absent means the kernel's global default. */
  readonly defaultTimeoutMs?: number;
  /** Undefined only while resolving proto options, where leaving it out is an error. */
  readonly idempotent: boolean | undefined;
  readonly terminatesTurn: boolean;
  /** The provider implements Preview for this tool. */
  readonly preview: boolean;
}
