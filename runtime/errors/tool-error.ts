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

/**
 * The options a ToolError of category `C` accepts: `invalid_arguments` is never retryable (the same
 * arguments fail the same input_schema), so `retryable: true` with it does not compile, and is
 * refused at run time for untyped callers.
 */
export type ToolErrorOptionsFor<C extends ToolErrorCategoryName> = [C] extends ["invalid_arguments"]
  ? ToolErrorOptions & { readonly retryable?: false }
  : ToolErrorOptions;

/** The contradiction ToolError refuses: arguments that failed input_schema will fail it again. */
export function refuseContradiction(category: string, options: { readonly retryable?: boolean }): void {
  if (category === "invalid_arguments" && options.retryable === true)
    throw new TypeError(
      "ToolError invalid_arguments cannot be retryable: the same arguments fail the same way (drop retryable, or use another category)",
    );
}

/** A classified failure of a tool call, emitted as the stream's terminal `error` event. */
class ClassifiedToolError extends Error {
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
    refuseContradiction(category, options);
    this.category = category;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

/** A classified failure of a tool call, emitted as the stream's terminal `error` event. */
export type ToolError = ClassifiedToolError;

/** ToolError's constructor, generic in the category so that its options follow it. */
export interface ToolErrorConstructor {
  new <C extends ToolErrorCategoryName>(category: C, message: string, options?: ToolErrorOptionsFor<C>): ToolError;
  readonly prototype: ToolError;
}

/** A classified failure of a tool call, emitted as the stream's terminal `error` event. */
export const ToolError: ToolErrorConstructor = ClassifiedToolError;

/** True for a ToolError, including one created by another copy of this package. */
export function isToolError(value: unknown): value is ToolError {
  if (value instanceof ToolError) return true;
  if (!(value instanceof Error) || value.name !== "ToolError") return false;
  const category: unknown = (value as { category?: unknown }).category;
  return typeof category === "string" && (toolErrorCategoryNames as readonly string[]).includes(category);
}
