/**
 * Whatever a handler throws, as the wire ToolError that ends its call. A ToolError keeps its
 * category; anything else becomes `unknown` with the raw error in `details`: its name, message,
 * code and cause, with the author's machine paths reduced (machine-paths.ts) and never its stack,
 * which goes to the kernel's log instead (NormalizeErrorOptions.log). Nothing here throws, whatever
 * was thrown: a getter that throws, or an `Error.prepareStackTrace` a dependency broke (the
 * `bindings` loader bundled into an ES module does), is read around, never let out.
 *
 * The taxonomy (`pluggableharness.tool.v1.ToolErrorCategory`, docs/runtime.md#the-error-surface) —
 * `unknown`: the raw error MUST be in `details`; every failure is classified, never one generic
 * error. `process_crashed` is kernel-synthesized only.
 */
import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import {
  ToolErrorSchema,
  type ToolErrorCategory,
  type ToolError as WireToolError,
} from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { readSafely, rendered, stackOf } from "./error-stack.js";
import { reduceMachinePaths } from "./machine-paths.js";
import {
  isToolError,
  refuseContradiction,
  toolErrorCategories,
  type ToolError,
  type ToolErrorCategoryName,
} from "./tool-error.js";

/** The wire enum value of a category. */
export function wireCategory(category: ToolErrorCategoryName): ToolErrorCategory {
  return toolErrorCategories.value(category);
}

/** Deep JSON-safe copy: anything JSON cannot carry becomes a descriptive string. */
function jsonSafe(value: unknown, depth = 0): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return rendered(value);
  if (depth > 6) return "[too deep]";
  if (value instanceof Error) return describeThrown(value, depth + 1);
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => jsonSafe(v, depth + 1));
  const out: JsonObject = {};
  for (const [k, v] of readSafely(() => Object.entries(value).slice(0, 100), []))
    if (v !== undefined && typeof v !== "function") out[k] = jsonSafe(v, depth + 1);
  return out;
}

/**
 * A thrown value as JSON for the model: for an Error its name, message (machine paths reduced),
 * code and cause; for anything else its type and a rendering. Never the stack (stackOf, for the log).
 */
export function describeThrown(thrown: unknown, depth = 0): JsonObject {
  if (thrown instanceof Error) {
    const out: JsonObject = {
      name: rendered(readSafely(() => thrown.name, "Error")),
      message: reduceMachinePaths(rendered(readSafely(() => thrown.message, ""))),
    };
    const code = readSafely(() => (thrown as { code?: unknown }).code, undefined);
    if (typeof code === "string" || typeof code === "number")
      out["code"] = typeof code === "string" ? reduceMachinePaths(code) : code;
    const cause = readSafely(() => thrown.cause, undefined);
    if (cause !== undefined && depth < 4) out["cause"] = jsonSafe(cause, depth + 1);
    return out;
  }
  const value = jsonSafe(thrown, depth + 1);
  return {
    type: thrown === null ? "null" : typeof thrown,
    value: typeof value === "string" ? reduceMachinePaths(value) : value,
  };
}

export { stackOf } from "./error-stack.js";

/**
 * A ToolError as the wire message. An `unknown` one without details gets the raw error in them, as
 * anything else thrown does (`details.error`): the taxonomy asks it of every `unknown`.
 */
function wireToolError(error: ToolError): WireToolError {
  const details =
    error.details !== undefined
      ? (jsonSafe(error.details) as JsonObject)
      : error.category === "unknown"
        ? { error: describeThrown(error) }
        : undefined;
  return create(ToolErrorSchema, {
    category: wireCategory(error.category),
    message: error.message,
    retryable: error.retryable,
    ...(details !== undefined ? { details } : {}),
  });
}

/** Options of wireError. */
export interface WireErrorOptions {
  /** Structured detail (ToolError.details). */
  readonly details?: JsonObject;
  /** Whether the kernel may retry the same call; default false. */
  readonly retryable?: boolean;
}

/** A wire ToolError the runtime itself decides on (a refusal, a provider bug, a bad argument). */
export function wireError(
  category: ToolErrorCategoryName,
  message: string,
  options: WireErrorOptions = {},
): WireToolError {
  refuseContradiction(category, options);
  return create(ToolErrorSchema, {
    category: wireCategory(category),
    message,
    retryable: options.retryable ?? false,
    ...(options.details !== undefined ? { details: options.details } : {}),
  });
}

/** Options of normalizeError. */
export interface NormalizeErrorOptions {
  /** What failed, e.g. "search failed": the message of anything but a ToolError starts with it. */
  readonly context: string;
  /**
   * The kernel's log (the service's stderr exit, redacted): anything but a ToolError is logged
   * there at error level with its stack, which the ToolError never carries.
   */
  readonly log?: (message: string, stack: string) => void;
}

/**
 * The one error normalizer: whatever was thrown, as the wire ToolError that ends a call. A
 * ToolError keeps its category (a category the provider may not emit, such as one forged on a
 * plain object, is not a ToolError and becomes `unknown`); anything else is `unknown` with
 * `details: {error: ...}`. Nothing here redacts: the exits do (secret-exits.ts).
 */
export function normalizeError(thrown: unknown, options: NormalizeErrorOptions): WireToolError {
  if (readSafely(() => isToolError(thrown), false)) return wireToolError(thrown as ToolError);
  const summary =
    thrown instanceof Error
      ? rendered(readSafely(() => thrown.message, ""))
      : typeof thrown === "string"
        ? thrown
        : `a non-Error value (${thrown === null ? "null" : typeof thrown})`;
  options.log?.(`${options.context}: ${summary}`, stackOf(thrown));
  return wireError("unknown", reduceMachinePaths(`${options.context}: ${summary}`), {
    details: { error: describeThrown(thrown) },
  });
}
