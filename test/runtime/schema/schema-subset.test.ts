// The common JSON-Schema subset: what is inside passes, everything outside is named with its path.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkSchemaSubset, checkToolSchemaDocument } from "../../../runtime/schema/index.js";

describe("schemas inside the subset", () => {
  const valid: unknown[] = [
    { type: "string" },
    { type: "string", description: "d", enum: ["a", "b"] },
    { type: "number" },
    { type: "boolean" },
    { type: "array", items: { type: "string" } },
    { type: "object", properties: {} },
    {
      type: "object",
      properties: {
        a: { type: "array", items: { type: "object", properties: { b: { type: "number" } }, required: ["b"] } },
      },
      required: ["a"],
    },
    { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: {} },
  ];
  for (const schema of valid) it(JSON.stringify(schema), () => assert.deepEqual(checkSchemaSubset(schema), []));
});

describe("schemas outside the subset", () => {
  const cases: [unknown, string, RegExp][] = [
    [{ type: "integer" }, "/type", /no integer: use "number"/],
    [{ type: "null" }, "/type", /no null/],
    [{ type: ["string", "null"] }, "/type", /type must be one of/],
    [{}, "/type", /type must be one of/],
    ["string", "", /must be a schema object/],
    [{ type: "string", pattern: "^a" }, "/pattern", /no pattern/],
    [{ type: "string", format: "uri" }, "/format", /no format/],
    [{ type: "object", properties: {}, additionalProperties: false }, "/additionalProperties", /always closed/],
    [{ type: "object", properties: { a: { oneOf: [] } } }, "/properties/a/type", /type must be one of/],
    [{ type: "object", properties: { a: { type: "string", oneOf: [] } } }, "/properties/a/oneOf", /no unions/],
    [{ type: "object", properties: {}, $ref: "#/x" }, "/$ref", /no references/],
    [{ type: "number", default: 1 }, "/default", /no defaults/],
    [{ type: "number", enum: ["1"] }, "/enum", /not allowed on a number node/],
    [{ type: "string", enum: [] }, "/enum", /non-empty array of strings/],
    [{ type: "string", enum: ["a", "a"] }, "/enum", /unique/],
    [{ type: "string", enum_values: ["a"] }, "/enum_values", /write `enum`/],
    [{ type: "array" }, "/items", /needs items/],
    [{ type: "array", items: { type: "integer" } }, "/items/type", /no integer/],
    [{ type: "object" }, "/properties", /needs properties/],
    [{ type: "object", properties: {}, required: ["x"] }, "/required", /"x", which is not in properties/],
    [{ type: "object", properties: { x: { type: "string" } }, required: ["x", "x"] }, "/required", /twice/],
    [{ type: "string", description: 3 }, "/description", /must be a string/],
    [{ type: "object", properties: { "a/b": { type: "nope" } } }, "/properties/a~1b/type", /type must be one of/],
  ];
  for (const [schema, path, message] of cases) {
    it(`${JSON.stringify(schema)} → ${path}`, () => {
      const problems = checkSchemaSubset(schema);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.path, path);
      assert.match(problems[0]?.message ?? "", message);
    });
  }

  it("reports every problem at once", () => {
    const problems = checkSchemaSubset({
      type: "object",
      properties: { a: { type: "integer" }, b: { type: "string", format: "x" } },
      required: ["c"],
    });
    assert.deepEqual(
      problems.map((p) => p.path),
      ["/properties/a/type", "/properties/b/format", "/required"],
    );
  });

  it("requires an object at the root of a tool schema", () => {
    assert.deepEqual(checkToolSchemaDocument({ type: "object", properties: {} }), []);
    assert.match(checkToolSchemaDocument({ type: "string" })[0]?.message ?? "", /must be objects at the root/);
  });
});
