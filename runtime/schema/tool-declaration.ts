/**
 * The plain, erased model of one tool's declaration: what the plugin resolves from proto options,
 * what the builder produces, and what `harness-tool check` decodes from a provider's GetSchema.
 * The invariants (invariants.ts) are written once against this shape.
 */
import {
  RiskClass,
  ToolKind,
  ToolSchemaSchema,
  type ToolSchema,
} from "../generated/pluggableharness/tool/v1/tool_pb.js";
import type { JsonSchemaObject } from "./json-schema.js";
import { protocolNames, type ProtocolName } from "./protocol-names.js";

/** ToolSchema.kind, by its protocol name: "resource", "data_source" or "interactive". */
export type ToolKindName = ProtocolName<typeof ToolKind>;

/** ToolSchema.risk, by its protocol name: "read_only", "low", "moderate", "high" or "critical". */
export type RiskName = ProtocolName<typeof RiskClass>;

/** The risks a resource may declare: every class except read_only. */
export type ResourceRiskName = Exclude<RiskName, "read_only">;

/** ToolSchema.kind's names and wire values, from the generated ToolKind. */
export const toolKinds = protocolNames(ToolKind);

/** ToolSchema.risk's names and wire values, from the generated RiskClass. */
export const riskClasses = protocolNames(RiskClass);

/** The kind names in wire order (TOOL_KIND_RESOURCE = 1 ...). */
export const toolKindNames: readonly ToolKindName[] = toolKinds.names;

/** The risk names in wire order (RISK_CLASS_READ_ONLY = 1 ...). */
export const riskNames: readonly RiskName[] = riskClasses.names;

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

/**
 * The declaration's yes/no facts that ToolSchema carries, under the same name on both sides (the
 * wire field's localName), in the order they are listed: where a list of them is needed (the wire
 * conversion, `harness-tool schema`'s flags column, the inspector's tool view) it comes from here.
 */
export const toolSchemaFlags = [
  "streaming",
  "idempotent",
  "terminatesTurn",
] as const satisfies readonly (keyof ToolDeclaration & keyof ToolSchema)[];

/** One of toolSchemaFlags. */
export type ToolSchemaFlag = (typeof toolSchemaFlags)[number];

/** A flag's protocol name, the ToolSchema field's proto name: "streaming", "idempotent", "terminates_turn". */
export function toolSchemaFlagName(flag: ToolSchemaFlag): string {
  return ToolSchemaSchema.field[flag].name;
}

/** The flags of a declaration or a wire ToolSchema, each a boolean (an unstated idempotent reads false). */
export function toolSchemaFlagValues(source: { readonly [F in ToolSchemaFlag]: boolean | undefined }): {
  [F in ToolSchemaFlag]: boolean;
} {
  return Object.fromEntries(toolSchemaFlags.map((flag) => [flag, source[flag] ?? false])) as {
    [F in ToolSchemaFlag]: boolean;
  };
}
