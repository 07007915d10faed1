// ToolError keeps its category; process_crashed cannot be constructed by a provider.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolError, isToolError, type ToolErrorCategoryName } from "../../../runtime/index.js";
import { toolErrorCategoryNames } from "../../../runtime/errors/index.js";
import { normalizeError, wireError } from "../../../runtime/errors/classify-error.js";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";

describe("ToolError", () => {
  it("carries category, message, retryable and details", () => {
    const e = new ToolError("not_found", "no such file", { retryable: true, details: { path: "/x" } });
    assert.equal(e.category, "not_found");
    assert.equal(e.message, "no such file");
    assert.equal(e.retryable, true);
    assert.deepEqual(e.details, { path: "/x" });
    assert.ok(isToolError(e));
  });

  it("cannot be constructed with process_crashed, even from untyped code", () => {
    assert.ok(!(toolErrorCategoryNames as readonly string[]).includes("process_crashed"));
    assert.throws(() => new ToolError("process_crashed" as ToolErrorCategoryName, "x"), /not one a provider may emit/);
  });

  it("recognises a ToolError-shaped error from another copy of the package, and nothing else", () => {
    const foreign = Object.assign(new Error("x"), { name: "ToolError", category: "timeout" });
    assert.ok(isToolError(foreign));
    assert.ok(!isToolError(Object.assign(new Error("x"), { name: "ToolError", category: "process_crashed" })));
    assert.ok(!isToolError(new Error("plain")));
    assert.ok(!isToolError({ name: "ToolError", category: "timeout" }));
  });

  it("refuses invalid_arguments with retryable: true, at compile time and at run time", () => {
    const retryable = { retryable: true } as unknown as { retryable: false };
    assert.throws(
      () => new ToolError("invalid_arguments", "bad path", retryable),
      /invalid_arguments cannot be retryable: the same arguments fail the same way \(drop retryable/,
    );
    assert.throws(() => wireError("invalid_arguments", "bad", { retryable: true }), /cannot be retryable/);
    assert.equal(new ToolError("invalid_arguments", "bad path", { retryable: false }).retryable, false);
    assert.equal(new ToolError("timeout", "slow", { retryable: true }).retryable, true);
    // @ts-expect-error invalid_arguments is never retryable
    assert.throws(() => new ToolError("invalid_arguments", "bad path", { retryable: true }));
  });

  it("an unknown ToolError without details goes out with the raw error in details, as a thrown Error does", () => {
    const wire = normalizeError(new ToolError("unknown", "the index is corrupt", { cause: new RangeError("page 7") }), {
      context: "search failed",
    });
    assert.equal(wire.category, ToolErrorCategory.UNKNOWN);
    assert.equal(wire.message, "the index is corrupt");
    assert.deepEqual(wire.details, {
      error: { name: "ToolError", message: "the index is corrupt", cause: { name: "RangeError", message: "page 7" } },
    });
    const own = normalizeError(new ToolError("unknown", "x", { details: { mine: 1 } }), { context: "c" });
    assert.deepEqual(own.details, { mine: 1 }, "an author's own details are kept as written");
    const other = normalizeError(new ToolError("not_found", "gone"), { context: "c" });
    assert.equal(other.details, undefined, "other categories get no details they did not bring");
  });
});
