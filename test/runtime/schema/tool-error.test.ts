// ToolError keeps its category; process_crashed cannot be constructed by a provider.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolError, isToolError, type ToolErrorCategoryName } from "../../../runtime/index.js";
import { toolErrorCategoryNames } from "../../../runtime/errors/index.js";

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
});
