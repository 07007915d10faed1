// Deep JSON in requests (runtime/service/calls/argument-depth.ts): depth measured without recursion for
// objects, lists and their mixes; a Struct deeper than the limit left out of the decoded request
// and named by tooDeep(); everything else decoded as protobuf-es decodes it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, toBinary, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { type Value, ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  ConfigureRequestSchema,
  InvokeRequestSchema,
  RenderRequestSchema,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import {
  decodeRequest,
  jsonDepth,
  maxArgumentDepth,
  shortestTooDeep,
  tooDeep,
} from "../../../runtime/service/calls/argument-depth.js";

/** `depth` levels alternating lists and objects: [{"a": [{"a": ...}, 1], "b": true}, 1]. */
function mixed(depth: number): JsonValue {
  let value: JsonValue = "leaf";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value, 1] : { a: value, b: true };
  return value;
}

/** A google.protobuf.Value message for a JSON value (built recursively: small values only). */
function jsonMessage(v: JsonValue): Value {
  if (v === null) return create(ValueSchema, { kind: { case: "nullValue", value: 0 } });
  if (typeof v === "number") return create(ValueSchema, { kind: { case: "numberValue", value: v } });
  if (typeof v === "string") return create(ValueSchema, { kind: { case: "stringValue", value: v } });
  if (typeof v === "boolean") return create(ValueSchema, { kind: { case: "boolValue", value: v } });
  if (Array.isArray(v))
    return create(ValueSchema, { kind: { case: "listValue", value: { values: v.map(jsonMessage) } } });
  const fields: Record<string, Value> = {};
  for (const [k, x] of Object.entries(v)) fields[k] = jsonMessage(x as JsonValue);
  return create(ValueSchema, { kind: { case: "structValue", value: { fields } } });
}

const valueBytes = (v: JsonValue) => toBinary(ValueSchema, jsonMessage(v));

/** An object nested `depth` levels, {"a": {"a": ... {}}}. */
function nested(depth: number): JsonObject {
  let value: JsonObject = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe("jsonDepth", () => {
  it("counts objects and lists as one level each, scalars as none; the deepest branch wins", () => {
    assert.equal(jsonDepth(valueBytes("x"), "value"), 0);
    assert.equal(jsonDepth(valueBytes({}), "value"), 1);
    assert.equal(jsonDepth(valueBytes([[], [[{}]], 3]), "value"), 4);
    assert.equal(jsonDepth(valueBytes({ a: 1, b: { c: [null, { d: "e" }] }, f: [] }), "value"), 4);
    for (const depth of [1, 2, 7, 40]) assert.equal(jsonDepth(valueBytes(mixed(depth)), "value"), depth);
  });

  it("says undefined for bytes that are not a message", () => {
    assert.equal(jsonDepth(Uint8Array.from([0x0a, 0x05, 0x01]), "struct"), undefined);
    assert.equal(jsonDepth(Uint8Array.from([0x0b]), "struct"), undefined);
  });
});

describe("decodeRequest", () => {
  const invoke = (args: JsonObject) =>
    toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call: { id: "c", toolName: "t", arguments: args } }));

  it(`decodes arguments up to ${maxArgumentDepth} levels as they are, with nothing left out`, () => {
    for (const depth of [1, 50, maxArgumentDepth]) {
      const request = decodeRequest(InvokeRequestSchema, invoke(nested(depth)));
      assert.equal(tooDeep(request.call as object), undefined);
      assert.equal(request.call?.id, "c");
      let levels = 1;
      for (let at = request.call?.arguments as JsonObject; at["a"] !== undefined; at = at["a"] as JsonObject) levels++;
      assert.equal(levels, depth);
    }
  });

  it("leaves out deeper arguments and names their depth on the call; the rest of the call stays", () => {
    const request = decodeRequest(InvokeRequestSchema, invoke(nested(maxArgumentDepth + 1)));
    assert.equal(request.call?.arguments, undefined);
    assert.deepEqual(tooDeep(request.call as object), { field: "arguments", depth: maxArgumentDepth + 1 });
    assert.equal(request.call?.id, "c");
    assert.equal(request.call?.toolName, "t");
    const config = decodeRequest(
      ConfigureRequestSchema,
      toBinary(ConfigureRequestSchema, create(ConfigureRequestSchema, { config: { list: [nested(600)] } })),
    );
    // The config object, the list, then 600 levels.
    assert.deepEqual(tooDeep(config), { field: "config", depth: 602 });
  });

  it(`is not walked under ${shortestTooDeep} bytes: the fewest bytes that nest ${maxArgumentDepth + 1} levels are at least that many`, () => {
    // The shortest encodings by hand (no map key, every length one byte where it fits): a Value's
    // list_value (field 6) or struct_value (field 5), a ListValue's element (field 1), a Struct's
    // map entry (field 1) whose value (field 2) is the Value.
    const field = (tag: number, body: Uint8Array): Uint8Array => {
      const length: number[] = [];
      for (let n = body.byteLength; ; n = Math.floor(n / 128)) {
        length.push(n >= 128 ? (n & 0x7f) | 0x80 : n);
        if (n < 128) break;
      }
      return Uint8Array.from([tag, ...length, ...body]);
    };
    const listLevel = (inner: Uint8Array) => field(0x0a, field(0x32, inner));
    const structLevel = (inner: Uint8Array) => field(0x0a, field(0x12, field(0x2a, inner)));
    for (const [kind, level] of [
      ["list", listLevel],
      ["struct", structLevel],
    ] as const) {
      // A container's body, maxArgumentDepth + 1 levels deep: an empty innermost one, then each level around it.
      let body: Uint8Array = new Uint8Array(0);
      for (let depth = 2; depth <= maxArgumentDepth + 1; depth++) body = level(body);
      assert.equal(jsonDepth(body, kind), maxArgumentDepth + 1);
      assert.ok(body.byteLength >= shortestTooDeep, `${body.byteLength} bytes nest ${maxArgumentDepth + 1} levels`);
    }
    // Through decodeRequest: the smallest too-deep arguments (an object holding lists) are still found.
    let list: JsonValue = [];
    for (let depth = 3; depth <= maxArgumentDepth + 1; depth++) list = [list];
    const bytes = invoke({ "": list });
    assert.ok(bytes.byteLength >= shortestTooDeep);
    assert.deepEqual(tooDeep(decodeRequest(InvokeRequestSchema, bytes).call as object), {
      field: "arguments",
      depth: maxArgumentDepth + 1,
    });
  });

  it("decodes requests without JSON as protobuf-es does, and still rejects malformed bytes", () => {
    const render = create(RenderRequestSchema, { payload: Uint8Array.from([1, 2, 3]), schemaVersion: "v1" });
    assert.deepEqual(decodeRequest(RenderRequestSchema, toBinary(RenderRequestSchema, render)), render);
    assert.throws(() => decodeRequest(InvokeRequestSchema, Uint8Array.from([0x0a, 0x09, 0x1a, 0x01])));
  });
});
