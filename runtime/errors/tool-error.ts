/**
 * The error taxonomy as a provider sees it (the kernel's
 * `pluggableharness.tool.v1.ToolErrorCategory`; docs/runtime.md#the-error-surface). A handler
 * throws a ToolError to end a call with that category; the runtime turns anything else thrown into
 * `unknown` with the raw error in `details`.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { ToolErrorCategory } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { protocolNames, type ProtocolName } from "../schema/protocol-names.js";

/** Every wire category by its protocol name, the kernel's `process_crashed` included, from the generated ToolErrorCategory. */
export const toolErrorCategories = protocolNames(ToolErrorCategory);

/**
 * The categories a provider may emit: "invalid_arguments", "not_found", "permission_denied",
 * "execution_failed", "timeout", "concurrency_conflict", "cancelled", "unknown". `process_crashed`
 * is not among them: only the kernel synthesizes it, so a provider cannot construct it.
 */
export type ToolErrorCategoryName = Exclude<ProtocolName<typeof ToolErrorCategory>, "process_crashed">;

/** Every category a provider may emit, in wire order (TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS = 1 ...). */
export const toolErrorCategoryNames: readonly ToolErrorCategoryName[] = toolErrorCategories.names.filter(
  (name): name is ToolErrorCategoryName => name !== "process_crashed",
);

/** Options of a ToolError beyond its category and message. */
export interface ToolErrorOptions {
  /** Whether the kernel may retry the same call (it still only auto-retries idempotent resources). */
  readonly retryable?: boolean;
  /** Structured detail for the model and the logs (ToolError.details). */
  readonly details?: JsonObject;
  /** The underlying error, kept for logs; it never crosses the wire by itself. */
  readonly cause?: unknown;
}

/** A classified failure of a tool call, emitted as the stream's terminal `error` event. */
export class ToolError extends Error {
  override readonly name = "ToolError";
  readonly category: ToolErrorCategoryName;
  readonly retryable: boolean;
  readonly details: JsonObject | undefined;

  constructor(category: ToolErrorCategoryName, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // seed: PROCESS_CRASHED is synthesized by the kernel only; reject it even from untyped callers.
    if (!(toolErrorCategoryNames as readonly string[]).includes(category)) {
      throw new TypeError(
        `ToolError category ${JSON.stringify(category)} is not one a provider may emit (use one of ${toolErrorCategoryNames.join(", ")})`,
      );
    }
    this.category = category;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

/** True for a ToolError, including one created by another copy of this package. */
export function isToolError(value: unknown): value is ToolError {
  if (value instanceof ToolError) return true;
  if (!(value instanceof Error) || value.name !== "ToolError") return false;
  const category: unknown = (value as { category?: unknown }).category;
  return typeof category === "string" && (toolErrorCategoryNames as readonly string[]).includes(category);
}
