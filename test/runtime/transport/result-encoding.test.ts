/**
 * The result InvokeResponse written by hand (runtime/transport/result-encoding.ts): byte for byte
 * what protobuf-es's toBinary writes, for many JSON payloads (every Value kind, nesting, unicode and
 * lone surrogates, empty keys, -0, integer-like keys), decoded back to the same payload; and what
 * it leaves to toBinary (not a result, no plain JSON, unknown fields, too deep).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { create, fromBinary, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { InvokeResponseSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { encodeResultResponse } from "../../../runtime/transport/result-encoding.js";
import { ScratchBuffer } from "../../../runtime/transport/output-chunk-encoding.js";
import { grpcServiceDefinition } from "../../../runtime/transport/grpc-service-definition.js";
import { ToolService } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";

const resultOf = (payload: JsonObject | undefined) =>
  create(InvokeResponseSchema, {
    event: { event: { case: "result", value: payload === undefined ? {} : { payload } } },
  });

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: "binary" }),
    fc.array(tie("value"), { maxLength: 4 }),
    tie("object"),
  ),
  object: fc.dictionary(fc.string({ unit: "binary", maxLength: 6 }), tie("value"), { maxKeys: 5 }),
}));

test("a result is written byte for byte as toBinary writes it, for many payloads", () => {
  fc.assert(
    fc.property(jsonValue.object, (payload) => {
      const message = resultOf(payload as JsonObject);
      const fast = encodeResultResponse(message);
      assert.ok(fast, "a plain JSON payload takes the fast path");
      assert.deepEqual([...fast], [...toBinary(InvokeResponseSchema, message)]);
    }),
    { numRuns: 2000 },
  );
});

test("edge payloads: empty, no payload, -0, integer-like keys, lone surrogates, long strings, deep", () => {
  const deep: JsonObject = {};
  let at = deep;
  for (let i = 0; i < 10; i++) {
    const next: JsonObject = {};
    at.n = [next, i];
    at = next;
  }
  const cases: (JsonObject | undefined)[] = [
    undefined,
    {},
    { "": "" },
    { z: -0, "10": 1, "2": false, a: [] },
    { s: "\ud800 lone, 😀 pair, é" },
    { long: "x".repeat(70_000), list: [null, true, 1.5, "y", {}, [[]]] },
    deep,
  ];
  const scratch = new ScratchBuffer(128 * 1024);
  for (const payload of cases) {
    const message = resultOf(payload);
    const expected = toBinary(InvokeResponseSchema, message);
    assert.deepEqual([...(encodeResultResponse(message) ?? [])], [...expected]);
    assert.deepEqual([...(encodeResultResponse(message, scratch) ?? [])], [...expected]);
    const back = fromBinary(InvokeResponseSchema, expected).event?.event;
    assert.equal(back?.case, "result");
  }
});

test("left to toBinary: other events, values that are not plain JSON, unknown fields, too deep", () => {
  const progress = create(InvokeResponseSchema, { event: { event: { case: "progress", value: { message: "m" } } } });
  assert.equal(encodeResultResponse(progress), undefined);
  for (const odd of [undefined, Number.NaN, Number.POSITIVE_INFINITY, () => 1, new Date(0), 1n]) {
    assert.equal(encodeResultResponse(resultOf({ odd } as unknown as JsonObject)), undefined, String(odd));
    assert.equal(encodeResultResponse(resultOf({ list: [odd] } as unknown as JsonObject)), undefined, String(odd));
  }
  const unknown = resultOf({ a: 1 });
  unknown.$unknown = [{ no: 99, wireType: 0, data: new Uint8Array([1]) }];
  assert.equal(encodeResultResponse(unknown), undefined);
  let deep: JsonObject = { leaf: 1 };
  for (let i = 0; i < 70; i++) deep = { d: deep };
  assert.equal(encodeResultResponse(resultOf(deep)), undefined, "deeper than the limit");
});

test("Invoke's serializer writes results the fast way and everything else as before", () => {
  const invoke = grpcServiceDefinition(ToolService).invoke;
  assert.ok(invoke);
  const serialize = invoke.responseSerialize as (value: unknown) => Buffer;
  const message = resultOf({ text: "hello", n: [1, null] });
  assert.deepEqual([...serialize(message)], [...toBinary(InvokeResponseSchema, message)]);
  // A payload that is not plain JSON goes through toBinary, whatever toBinary makes of it.
  const odd = resultOf({ when: new Date(0), list: [undefined] } as unknown as JsonObject);
  assert.equal(encodeResultResponse(odd), undefined);
  assert.deepEqual([...serialize(odd)], [...toBinary(InvokeResponseSchema, odd)]);
});
