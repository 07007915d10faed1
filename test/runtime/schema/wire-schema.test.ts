// Declarations and JSON Schemas round-trip through their wire messages.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toBinary, fromBinary } from "@bufbuild/protobuf";
import { SchemaType } from "../../../generated/pluggableharness/schema/v1/schema_pb.js";
import { RiskClass, ToolKind, ToolSchemaSchema } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import type { JsonSchemaObject } from "../../../runtime/index.js";
import {
  checkToolDeclaration,
  jsonSchemaFromWire,
  jsonSchemaToWire,
  toolDeclarationFromWire,
  toolDeclarationToWire,
  type ToolDeclaration,
} from "../../../runtime/schema/index.js";

const input: JsonSchemaObject = {
  type: "object",
  description: "The input.",
  properties: {
    path: { type: "string", description: "Where." },
    mode: { type: "string", enum: ["read", "write"] },
    sizes: { type: "array", items: { type: "number" } },
  },
  required: ["path"],
};

const tool: ToolDeclaration = {
  name: "write_file",
  kind: "resource",
  risk: "moderate",
  description: "Writes.",
  inputSchema: input,
  outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
  streaming: true,
  processBacked: false,
  concurrency: { safe: true, keyFields: ["path"] },
  defaultTimeoutMs: 1500,
  idempotent: true,
  terminatesTurn: true,
  preview: false,
};

describe("wire conversions", () => {
  it("maps a JSON Schema onto schema.v1.Schema, enum becoming enum_values", () => {
    const wire = jsonSchemaToWire(input);
    assert.equal(wire.type, SchemaType.OBJECT);
    assert.equal(wire.properties["mode"]?.type, SchemaType.STRING);
    assert.deepEqual(wire.properties["mode"]?.enumValues, ["read", "write"]);
    assert.equal(wire.properties["sizes"]?.items?.type, SchemaType.NUMBER);
    assert.deepEqual(wire.required, ["path"]);
    assert.deepEqual(jsonSchemaFromWire(wire), input);
  });

  it("maps a declaration onto ToolSchema and back through the binary form", () => {
    const wire = fromBinary(ToolSchemaSchema, toBinary(ToolSchemaSchema, toolDeclarationToWire(tool)));
    assert.equal(wire.kind, ToolKind.RESOURCE);
    assert.equal(wire.risk, RiskClass.MODERATE);
    assert.equal(wire.defaultTimeout?.seconds, 1n);
    assert.equal(wire.defaultTimeout?.nanos, 500_000_000);
    assert.equal(wire.terminatesTurn, true);
    assert.deepEqual(wire.concurrency?.keyFields, ["path"]);
    assert.deepEqual(toolDeclarationFromWire(wire), tool);
  });

  it("puts a default timeout on the wire in whole milliseconds, a fraction rounded up", () => {
    const wire = fromBinary(
      ToolSchemaSchema,
      toBinary(ToolSchemaSchema, toolDeclarationToWire({ ...tool, defaultTimeoutMs: 30_000.7 })),
    );
    assert.deepEqual([wire.defaultTimeout?.seconds, wire.defaultTimeout?.nanos], [30n, 1_000_000]);
    assert.equal(toolDeclarationFromWire(wire).defaultTimeoutMs, 30_001);
  });

  it("keeps what a foreign ToolSchema gets wrong, so the invariants can name it", () => {
    const wire = toolDeclarationToWire(tool);
    wire.kind = ToolKind.UNSPECIFIED;
    wire.inputSchema = undefined;
    const back = toolDeclarationFromWire(wire);
    const rules = checkToolDeclaration(back).map((v) => v.rule);
    assert.ok(rules.includes("kind-required"));
    assert.ok(rules.includes("input-schema-subset"));
  });

  it("refuses to put an unspecified kind on the wire", () => {
    assert.throws(() => toolDeclarationToWire({ ...tool, kind: "unspecified" }), /kind and risk must be set/);
  });
});
