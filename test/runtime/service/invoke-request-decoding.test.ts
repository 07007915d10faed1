// readPlainInvokeRequest: the InvokeRequest read by hand is exactly what protobuf-es's fromBinary
// returns, or undefined (and the caller decodes with fromBinary): on every request protobuf-es
// encodes, and on those bytes corrupted.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, fromBinary, type JsonObject, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import fc from "fast-check";
import { InvokeRequestSchema } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { decodeRequest } from "../../../runtime/service/calls/argument-depth.js";
import { readPlainInvokeRequest } from "../../../runtime/service/calls/invoke-request-decoding.js";

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom("__proto__", "constructor", "0", "10"),
);
const json = fc.letrec<{ value: unknown; object: JsonObject }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.array(tie("value"), { maxLength: 4 }),
    tie("object"),
  ),
  object: fc.dictionary(text, tie("value"), { maxKeys: 5 }) as fc.Arbitrary<JsonObject>,
}));
const request = fc.record(
  {
    id: text,
    toolName: text,
    arguments: json.object,
    callContext: fc.record({ sessionId: text, turnId: text, workingDirectory: text }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

function encoded(call: object): Uint8Array {
  return toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { call }));
}

/** fromBinary's answer: the message, or that it threw. */
function byProtobuf(bytes: Uint8Array): unknown {
  try {
    return fromBinary(InvokeRequestSchema, bytes);
  } catch {
    return "threw";
  }
}

describe("the InvokeRequest read by hand", () => {
  it("equals fromBinary on every request protobuf-es encodes", () => {
    fc.assert(
      fc.property(request, (call) => {
        const bytes = encoded(call);
        const plain = readPlainInvokeRequest(bytes);
        assert.ok(plain !== undefined, "a request protobuf-es encodes is plain");
        assert.deepStrictEqual(plain, fromBinary(InvokeRequestSchema, bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it("on corrupted bytes answers undefined or exactly what fromBinary answers", () => {
    fc.assert(
      fc.property(
        request,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        (call, flips, cut) => {
          const bytes = encoded(call).slice();
          for (const [at, byte] of flips) if (bytes.length > 0) bytes[at % bytes.length] = byte;
          const corrupted = bytes.subarray(0, bytes.length - (cut % 3));
          const plain = readPlainInvokeRequest(corrupted);
          if (plain !== undefined) assert.deepStrictEqual(plain, byProtobuf(corrupted));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("leaves to protobuf-es what is not the kernel's form: unknown fields, a Value of no kind, a field twice, bad UTF-8", () => {
    const withUnknown = new BinaryWriter().tag(1, 2).fork().tag(9, 0).uint32(1).join().finish();
    const emptyValue = new BinaryWriter()
      .tag(1, 2)
      .fork()
      .tag(3, 2)
      .fork()
      .tag(1, 2)
      .fork()
      .tag(1, 2)
      .string("a")
      .tag(2, 2)
      .fork()
      .join()
      .join()
      .join()
      .join()
      .finish();
    const twice = new BinaryWriter().tag(1, 2).fork().tag(1, 2).string("a").tag(1, 2).string("b").join().finish();
    const badUtf8 = new BinaryWriter()
      .tag(1, 2)
      .fork()
      .tag(1, 2)
      .bytes(new Uint8Array([0xff, 0xfe]))
      .join()
      .finish();
    for (const bytes of [withUnknown, emptyValue, twice, badUtf8])
      assert.equal(readPlainInvokeRequest(bytes), undefined);
    // decodeRequest still answers as fromBinary does for each.
    assert.deepStrictEqual(decodeRequest(InvokeRequestSchema, emptyValue), fromBinary(InvokeRequestSchema, emptyValue));
    assert.equal(decodeRequest(InvokeRequestSchema, twice).call?.id, "b");
    assert.throws(() => decodeRequest(InvokeRequestSchema, badUtf8));
  });

  it('a "__proto__" argument is an own property, as protobuf-es sets it', () => {
    const bytes = encoded({ id: "c", toolName: "t", arguments: JSON.parse('{"__proto__": {"x": 1}}') });
    const plain = readPlainInvokeRequest(bytes);
    assert.ok(plain?.call?.arguments && Object.hasOwn(plain.call.arguments, "__proto__"));
    assert.equal(Object.getPrototypeOf(plain.call.arguments), Object.prototype);
    assert.deepStrictEqual(plain, fromBinary(InvokeRequestSchema, bytes));
  });

  it("decodeRequest answers a short Invoke with the same message", () => {
    const bytes = encoded({ id: "c", toolName: "echo", arguments: { text: "hello" }, callContext: { sessionId: "s" } });
    assert.deepStrictEqual(decodeRequest(InvokeRequestSchema, bytes), fromBinary(InvokeRequestSchema, bytes));
  });
});
