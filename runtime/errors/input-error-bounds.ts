/**
 * Bounds on the errors the runtime builds from what it was sent (arguments failing input_schema,
 * a result failing output_schema, a configuration failing its attributes, an unknown tool name):
 * however large the input, the error the kernel feeds back to the model stays small. The first
 * violations are listed, the rest counted; every text taken from the input is clipped.
 *
 * With these bounds an error event carries at most `maxReportedViolations` violations of at most
 * 2 × `maxQuotedChars` characters each, and a message of at most `maxErrorMessageChars`
 * characters: under 16 KiB on the wire (docs/runtime.md#bounded-errors).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ValueViolation } from "../schema/value-violation.js";

/** How many violations `details.violations` lists; the rest are counted in `details.violations_omitted`. */
export const maxReportedViolations = 20;

/** How many violations the message names ("...; and 299,995 more"). */
export const maxSummarizedViolations = 5;

/**
 * The longest text from the input an error quotes (a violation's path or message, a tool name),
 * in UTF-16 code units; a longer one keeps its start and says how much was cut.
 */
export const maxQuotedChars = 256;

/** The longest message of an error built from input, in UTF-16 code units. */
export const maxErrorMessageChars = 2048;

/** `text`, cut to `max` characters with a note of how many more there were (never splitting a surrogate pair). */
export function clipText(text: string, max: number = maxQuotedChars): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…(${text.length - end} more characters)`;
}

/** A text from the input as an error quotes it: JSON-quoted, clipped. */
export function quoteInput(text: string): string {
  return JSON.stringify(clipText(text));
}

/** An error message built from input, clipped to `maxErrorMessageChars`. */
export function boundedMessage(message: string): string {
  return clipText(message, maxErrorMessageChars);
}

/** Violations as an error reports them: a summary for the message and ToolError.details. */
export interface ViolationReport {
  /** The first `maxSummarizedViolations` as "path message; ...", then how many more. */
  readonly summary: string;
  /** `{violations: [{path, message}]}`: the first `maxReportedViolations`; `violations_omitted` counts the rest. */
  readonly details: JsonObject;
}

/** The bounded report of `violations` (however many there are). */
export function reportViolations(violations: readonly ValueViolation[]): ViolationReport {
  const shown = violations
    .slice(0, maxSummarizedViolations)
    .map((v) => `${clipText(v.path) || "/"} ${clipText(v.message)}`);
  const rest = violations.length - shown.length;
  const summary = shown.join("; ") + (rest > 0 ? `; and ${rest.toLocaleString("en-US")} more` : "");
  const listed = violations
    .slice(0, maxReportedViolations)
    .map((v) => ({ path: clipText(v.path), message: clipText(v.message) }));
  const omitted = violations.length - listed.length;
  return {
    summary,
    details: { violations: listed, ...(omitted > 0 ? { violations_omitted: omitted } : {}) },
  };
}
