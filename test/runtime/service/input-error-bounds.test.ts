// Bounds on errors built from input (runtime/errors/input-error-bounds.ts): the worst case a
// report can reach, whatever the number and size of the violations, and clipping that never
// splits a character.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { ToolErrorSchema } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import {
  boundedMessage,
  clipText,
  maxErrorMessageChars,
  maxQuotedChars,
  maxReportedViolations,
  maxSummarizedViolations,
  reportViolations,
} from "../../../runtime/errors/input-error-bounds.js";

describe("input error bounds", () => {
  it("lists the first violations and counts the rest", () => {
    const violations = Array.from({ length: 300_000 }, (_, i) => ({
      path: `/items/${i}`,
      message: "must be a string, not a boolean",
    }));
    const report = reportViolations(violations);
    const details = report.details as { violations: { path: string }[]; violations_omitted: number };
    assert.equal(details.violations.length, maxReportedViolations);
    assert.equal(details.violations[0]?.path, "/items/0");
    assert.equal(details.violations_omitted, 300_000 - maxReportedViolations);
    assert.equal(report.summary.split("; ").length, maxSummarizedViolations + 1);
    assert.match(report.summary, /; and 299,995 more$/);
    const few = reportViolations(violations.slice(0, 2));
    assert.deepEqual(few.details, { violations: violations.slice(0, 2) });
    assert.equal(few.summary, "/items/0 must be a string, not a boolean; /items/1 must be a string, not a boolean");
  });

  it("worst case: 300,000 violations of 1 MB paths and messages make a ToolError under 16 KiB", () => {
    const long = "p".repeat(1_000_000);
    const report = reportViolations(
      Array.from({ length: 300_000 }, () => ({ path: `/${long}`, message: `must be one of ${long}` })),
    );
    const message = boundedMessage(`the arguments of t do not match its input_schema: ${report.summary}`);
    assert.ok(message.length <= maxErrorMessageChars + 40, `${message.length}`);
    const wire = toBinary(ToolErrorSchema, create(ToolErrorSchema, { message, details: report.details as JsonObject }));
    assert.ok(wire.byteLength < 16 * 1024, `${wire.byteLength} bytes`);
  });

  it("clips text with a note of what was cut, never inside a surrogate pair", () => {
    assert.equal(clipText("short"), "short");
    const clipped = clipText("x".repeat(maxQuotedChars + 10));
    assert.equal(clipped, `${"x".repeat(maxQuotedChars)}…(10 more characters)`);
    const emoji = `${"x".repeat(maxQuotedChars - 1)}🔑🔑`;
    const cut = clipText(emoji);
    assert.ok(cut.startsWith("x".repeat(maxQuotedChars - 1) + "…"), cut);
    assert.equal(cut.endsWith("(4 more characters)"), true);
  });
});
