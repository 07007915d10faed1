// harness-tool/mcp's two pure parts: an MCP tool's JSON Schema mapped into the common subset (or
// refused, never changed), and Configure's comparison of the server's live tools with the import.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareSurface, type ImportedTool, mapMcpSchema } from "harness-tool/mcp";
import { checkToolSchemaDocument } from "harness-tool/schema";

describe("mapMcpSchema", () => {
  it("maps what the subset says the same way: integer, bounds and defaults in the description, closed objects", () => {
    const mapped = mapMcpSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      title: "Args",
      additionalProperties: false,
      properties: {
        count: { type: "integer", description: "How many", minimum: 1, default: 3 },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 2 },
      },
      required: ["count"],
    });
    assert.ok(mapped.ok);
    assert.deepEqual(mapped.schema, {
      type: "object",
      properties: {
        count: { type: "number", description: "How many (an integer; default: 3; minimum: 1)" },
        tags: { type: "array", description: "(maxItems: 2)", items: { type: "string", enum: ["a", "b"] } },
      },
      required: ["count"],
    });
    assert.deepEqual(checkToolSchemaDocument(mapped.schema), []);
  });

  it("refuses what the subset cannot express, naming where", () => {
    const cases: [unknown, RegExp][] = [
      [
        { type: "object", properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } } },
        /\/properties\/v: `anyOf`/,
      ],
      [{ type: "object", properties: { m: { type: "object", additionalProperties: { type: "string" } } } }, /open map/],
      [{ type: "object", properties: { n: { type: ["string", "null"] } } }, /type \["string","null"\]/],
      [{ type: "object", properties: { e: { type: "number", enum: [1, 2] } } }, /enum of anything but strings/],
      [{ type: "object", properties: { r: { $ref: "#/definitions/x" } } }, /`\$ref`/],
      [{ type: "string" }, /objects at the root/],
    ];
    for (const [schema, problem] of cases) {
      const mapped = mapMcpSchema(schema);
      assert.equal(mapped.ok, false, JSON.stringify(schema));
      assert.match(mapped.ok ? "" : mapped.problems.join("\n"), problem);
    }
  });

  it("takes a root object without properties as no arguments", () => {
    assert.deepEqual(mapMcpSchema({ type: "object" }), { ok: true, schema: { type: "object", properties: {} } });
  });
});

describe("compareSurface", () => {
  const echo: ImportedTool = {
    name: "echo",
    handler: "echo",
    description: "Echoes.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    hints: { readOnlyHint: true },
  };
  const live = (overrides: Record<string, unknown> = {}) => ({
    name: "echo",
    description: "Echoes.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true },
    ...overrides,
  });

  it("finds nothing when nothing changed", () => {
    assert.deepEqual(compareSurface([echo], [live()]), { refused: [], compatible: [] });
  });

  it("logs compatible changes: a description, a new optional input, a new tool", () => {
    const drift = compareSurface(
      [echo],
      [
        live({
          description: "Echoes again.",
          inputSchema: {
            type: "object",
            properties: { text: { type: "string" }, loud: { type: "boolean" } },
            required: ["text"],
          },
        }),
        { name: "other", inputSchema: { type: "object" } },
      ],
    );
    assert.deepEqual(drift.refused, []);
    assert.deepEqual(drift.compatible, [
      "echo: new optional input fields",
      "echo: its description changed",
      "other: new on the server, not imported",
    ]);
  });

  it("refuses breaking and risk-relevant changes", () => {
    const required = live({
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" }, n: { type: "number" } },
        required: ["text", "n"],
      },
      annotations: { readOnlyHint: false },
      outputSchema: { type: "object", properties: {} },
    });
    assert.deepEqual(compareSurface([echo], [required]).refused, [
      "echo: its input schema changed",
      "echo: its output schema was added",
      "echo: readOnlyHint no longer true",
    ]);
    assert.deepEqual(compareSurface([echo], []).refused, ["echo: gone from the server"]);
  });
});
