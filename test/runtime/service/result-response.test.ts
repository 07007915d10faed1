/**
 * A result's InvokeResponse built directly (invoke-in-flight.ts's resultResponse) is the message
 * `create` makes from the same payload: the same fields, type names and bytes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { InvokeResponseSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { resultResponse } from "../../../runtime/service/calls/invoke-in-flight.js";

test("resultResponse is what create makes of a result event", () => {
  for (const payload of [{}, { text: "hello" }, { n: 1, list: [null, true, { a: "b" }] }] as JsonObject[]) {
    const made = create(InvokeResponseSchema, { event: { event: { case: "result", value: { payload } } } });
    const direct = resultResponse(payload);
    assert.deepStrictEqual(direct, made);
    assert.deepEqual([...toBinary(InvokeResponseSchema, direct)], [...toBinary(InvokeResponseSchema, made)]);
  }
});
