// The one validator (compiled once per schema or check description): every violation with its
// JSON Pointer path.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonSchema } from "../../../runtime/index.js";
import { validateValue, validatorFor, type ValueCheck } from "../../../runtime/schema/index.js";

const schema: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    mode: { type: "string", enum: ["read", "write"] },
    limit: { type: "number" },
    flags: { type: "array", items: { type: "boolean" } },
    nested: { type: "object", properties: { "a/b": { type: "string" } }, required: ["a/b"] },
  },
  required: ["path"],
};

describe("validateValue", () => {
  it("accepts a conforming value, with optional fields left out", () => {
    assert.deepEqual(validateValue(schema, { path: "x" }), []);
    assert.deepEqual(
      validateValue(schema, { path: "x", mode: "read", limit: 1.5, flags: [true], nested: { "a/b": "c" } }),
      [],
    );
  });

  it("names every violation with its path", () => {
    const found = validateValue(schema, { mode: "append", limit: "1", flags: [true, 1], nested: {}, extra: 1 });
    assert.deepEqual(found, [
      { path: "/path", message: "is required" },
      { path: "/mode", message: 'must be one of "read", "write"' },
      { path: "/limit", message: "must be a number, not a string" },
      { path: "/flags/1", message: "must be a boolean, not a number" },
      { path: "/nested/a~1b", message: "is required" },
      { path: "/extra", message: "is not a known property" },
    ]);
  });

  it("rejects non-objects, null, arrays and non-finite numbers for what they are", () => {
    assert.deepEqual(validateValue(schema, null), [{ path: "", message: "must be an object, not null" }]);
    assert.deepEqual(validateValue(schema, []), [{ path: "", message: "must be an object, not an array" }]);
    assert.deepEqual(validateValue({ type: "number" }, Number.NaN), [
      { path: "", message: "must be a number, not a non-finite number" },
    ]);
  });

  it("does not treat inherited properties as declared ones", () => {
    assert.deepEqual(validateValue(schema, { path: "x", toString: "y" }), [
      { path: "/toString", message: "is not a known property" },
    ]);
  });

  it("refuses a fraction where a check says integer, and checks every entry of a map", () => {
    const check: ValueCheck = {
      type: "object",
      properties: { count: { type: "number", integer: true }, labels: { type: "map", values: { type: "string" } } },
      required: ["count"],
    };
    const validate = validatorFor(check);
    assert.deepEqual(validate({ count: -3, labels: { a: "x", "b/c": "y" } }), []);
    assert.deepEqual(validate({ count: 1.5, labels: { a: 1, "b/c": "y", "d~": undefined } }), [
      { path: "/count", message: "must be an integer, not 1.5" },
      { path: "/labels/a", message: "must be a string, not a number" },
      { path: "/labels/d~0", message: "must be a string, not undefined" },
    ]);
    assert.deepEqual(validate({ count: "2", labels: [] }), [
      { path: "/count", message: "must be a number, not a string" },
      { path: "/labels", message: "must be an object, not an array" },
    ]);
  });

  it("gives the same answers on every call of one compiled validator", () => {
    const validate = validatorFor(schema);
    for (let i = 0; i < 3; i++)
      assert.deepEqual(validate({ path: 1 }), [{ path: "/path", message: "must be a string, not a number" }]);
  });
});
