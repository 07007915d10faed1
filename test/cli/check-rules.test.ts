// The conformance checker's pure parts: generated arguments and the Invoke stream rules.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import {
  GetSchemaResponseSchema,
  ToolErrorCategory,
  ToolEventSchema,
  type ToolEvent,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { resourceKeysRule } from "../../cli/check/schema-rules.js";
import { invalidArgumentVariants, sampleValue } from "../../cli/check/sample-arguments.js";
import { checkInvokeStream } from "../../cli/check/stream-shape.js";
import type { JsonSchemaObject } from "../../runtime/index.js";
import { toolDeclarationToWire, validateValue, type ToolDeclaration } from "../../runtime/schema/index.js";

const input: JsonSchemaObject = {
  type: "object",
  properties: {
    path: { type: "string" },
    mode: { type: "string", enum: ["fast", "slow"] },
    depth: { type: "number" },
    tags: { type: "array", items: { type: "string" } },
    nested: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"] },
  },
  required: ["path", "mode", "nested"],
};

describe("sample arguments", () => {
  it("makes a value that conforms to the input schema", () => {
    const value = sampleValue(input);
    assert.deepEqual(value, { path: "example", mode: "fast", nested: { on: false } });
    assert.deepEqual(validateValue(input, value), []);
  });

  it("makes invalid variants that each break the schema", () => {
    const variants = invalidArgumentVariants(input);
    assert.deepEqual(
      variants.map((v) => v.why),
      [
        'required field "path" left out',
        'field "path" of the wrong type',
        'field "mode" outside its enum',
        'unknown field "unexpected_field"',
      ],
    );
    for (const v of variants) assert.ok(validateValue(input, v.arguments).length > 0, v.why);
  });
});

const declaration: ToolDeclaration = {
  name: "t",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  inputSchema: input,
  outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  streaming: false,
  processBacked: false,
  concurrency: { safe: true },
  idempotent: true,
  terminatesTurn: false,
  preview: false,
};
const plain = toolDeclarationToWire(declaration);
const streaming = toolDeclarationToWire({ ...declaration, streaming: true });

const result = (payload: Record<string, number | string>): ToolEvent =>
  create(ToolEventSchema, { event: { case: "result", value: { payload } } });
const error = (category: ToolErrorCategory): ToolEvent =>
  create(ToolEventSchema, { event: { case: "error", value: { category, message: "m" } } });
const progress = (): ToolEvent => create(ToolEventSchema, { event: { case: "progress", value: { message: "p" } } });
const exit = (): ToolEvent => create(ToolEventSchema, { event: { case: "exitStatus", value: { exitCode: 0 } } });

describe("Invoke stream rules", () => {
  const ok = { cancelled: false };
  it("accepts one conforming result, with lead-up events on a streaming tool", () => {
    assert.deepEqual(checkInvokeStream(plain, [result({ n: 1 })], ok), []);
    assert.deepEqual(checkInvokeStream(streaming, [progress(), exit(), result({ n: 1 })], ok), []);
    assert.deepEqual(checkInvokeStream(plain, [error(ToolErrorCategory.NOT_FOUND)], ok), []);
  });

  const cases: [string, Parameters<typeof checkInvokeStream>, string][] = [
    ["no terminal", [plain, [], ok], "one-terminal"],
    ["two terminals", [plain, [result({ n: 1 }), error(ToolErrorCategory.UNKNOWN)], ok], "one-terminal"],
    ["terminal after cancel", [plain, [result({ n: 1 })], { cancelled: true }], "one-terminal"],
    ["event after the terminal", [streaming, [result({ n: 1 }), progress()], ok], "terminal-last"],
    ["progress on a non-streaming tool", [plain, [progress(), result({ n: 1 })], ok], "intermediate-needs-streaming"],
    ["two exit statuses", [streaming, [exit(), exit(), result({ n: 1 })], ok], "exit-status-once"],
    ["non-conforming result", [plain, [result({ n: "one" })], ok], "output-conforms"],
    ["PROCESS_CRASHED from a provider", [plain, [error(ToolErrorCategory.PROCESS_CRASHED)], ok], "error-category"],
    ["unclassified error", [plain, [error(ToolErrorCategory.UNSPECIFIED)], ok], "error-category"],
    ["UNKNOWN without details", [plain, [error(ToolErrorCategory.UNKNOWN)], ok], "error-category"],
  ];
  for (const [name, args, rule] of cases) {
    it(`flags ${name}`, () => {
      const rules = checkInvokeStream(...args).map((p) => p.rule);
      assert.ok(rules.includes(rule as never), `${rules.join(", ")} does not include ${rule}`);
    });
  }
});

describe("resource concurrency review", () => {
  const resource: ToolDeclaration = {
    ...declaration,
    name: "save",
    kind: "resource",
    risk: "low",
    idempotent: false,
    concurrency: { safe: true, keyFields: ["path"] },
  };
  const schemaOf = (...tools: ToolDeclaration[]) =>
    create(GetSchemaResponseSchema, { tools: tools.map(toolDeclarationToWire) });

  it("passes keyed, provider-locked and data-source tools", () => {
    const locked = { ...resource, name: "wipe", concurrency: { safe: false } };
    assert.equal(resourceKeysRule(schemaOf(declaration, resource, locked)).status, "pass");
  });

  it("warns, naming the tool, when a resource runs in parallel with no key_fields", () => {
    const unkeyed = { ...resource, name: "append", concurrency: { safe: true } };
    const row = resourceKeysRule(schemaOf(declaration, resource, unkeyed));
    assert.equal(row.status, "warn");
    assert.equal(row.rule, "schema.resource-keys");
    assert.match(row.why, /^append: safe = true with no key_fields/);
    assert.doesNotMatch(row.why, /save:/);
  });
});
