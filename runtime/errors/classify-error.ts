/**
 * Whatever a handler throws, as the wire ToolError that ends its call. A ToolError keeps its
 * category; anything else becomes `unknown` with the raw error in `details`.
 *
 * wire-contract §5 error taxonomy — `unknown`: the raw error MUST be in `details`; every failure
 * is classified, never one generic error. `process_crashed` is kernel-synthesized only.
 */
import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ToolErrorSchema, type ToolErrorCategory, type ToolError as WireToolError } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { isToolError, toolErrorCategories, type ToolError, type ToolErrorCategoryName } from "./tool-error.js";

/** The wire enum value of a category. */
export function wireCategory(category: ToolErrorCategoryName): ToolErrorCategory {
  return toolErrorCategories.value(category);
}

const maxStackLines = 12;

/** Deep JSON-safe copy: anything JSON cannot carry becomes a descriptive string. */
function jsonSafe(value: unknown, depth = 0): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "object") return String(value);
  if (depth > 6) return "[too deep]";
  if (value instanceof Error) return describeThrown(value, depth + 1);
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => jsonSafe(v, depth + 1));
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value).slice(0, 100)) if (v !== undefined && typeof v !== "function") out[k] = jsonSafe(v, depth + 1);
  return out;
}

/**
 * A thrown value as JSON: for an Error its name, message, code, a short stack and its cause; for
 * anything else its type and a rendering.
 */
export function describeThrown(thrown: unknown, depth = 0): JsonObject {
  if (thrown instanceof Error) {
    const out: JsonObject = { name: thrown.name, message: thrown.message };
    const code = (thrown as { code?: unknown }).code;
    if (typeof code === "string" || typeof code === "number") out["code"] = code;
    if (thrown.stack) out["stack"] = thrown.stack.split("\n").slice(0, maxStackLines).join("\n");
    if (thrown.cause !== undefined && depth < 4) out["cause"] = jsonSafe(thrown.cause, depth + 1);
    return out;
  }
  return { type: thrown === null ? "null" : typeof thrown, value: jsonSafe(thrown, depth + 1) };
}

/** A ToolError as the wire message. */
function wireToolError(error: ToolError): WireToolError {
  return create(ToolErrorSchema, {
    category: wireCategory(error.category),
    message: error.message,
    retryable: error.retryable,
    ...(error.details !== undefined ? { details: jsonSafe(error.details) as JsonObject } : {}),
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
export function wireError(category: ToolErrorCategoryName, message: string, options: WireErrorOptions = {}): WireToolError {
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
}

/**
 * The one error normalizer: whatever was thrown, as the wire ToolError that ends a call. A
 * ToolError keeps its category (a category the provider may not emit, such as one forged on a
 * plain object, is not a ToolError and becomes `unknown`); anything else is `unknown` with
 * `details: {error: ...}`. Nothing here redacts: the exits do (secret-exits.ts).
 */
export function normalizeError(thrown: unknown, options: NormalizeErrorOptions): WireToolError {
  if (isToolError(thrown)) return wireToolError(thrown);
  const summary =
    thrown instanceof Error ? thrown.message : typeof thrown === "string" ? thrown : `a non-Error value (${thrown === null ? "null" : typeof thrown})`;
  return wireError("unknown", `${options.context}: ${summary}`, { details: { error: describeThrown(thrown) } });
}
