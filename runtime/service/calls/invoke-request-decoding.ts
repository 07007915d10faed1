/**
 * The InvokeRequest read by hand, in the form every kernel sends it: each field once, every
 * google.protobuf.Value holding exactly one kind, nothing unknown. protobuf-es decodes a Struct
 * argument through a Struct message, a map of Value messages and their conversion to JSON, a
 * measurable share of a trivial call's CPU at high concurrency; this reads the same bytes straight
 * into the JSON and the plain message objects fromBinary returns (test/runtime/service/
 * invoke-request-decoding.test.ts holds it to fromBinary). Anything else it does not read returns
 * undefined, and the caller decodes with protobuf-es as before: the answer never differs. Strings
 * are checked as UTF-8 (`string(true)`), as proto3's fields are by protobuf-es.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { CallContext } from "../../generated/pluggableharness/common/v1/common_pb.js";
import type { InvokeRequest, ToolCall } from "../../generated/pluggableharness/tool/v1/tool_pb.js";

/** A form this reader leaves to protobuf-es. */
class NotPlain extends Error {}
const notPlain = new NotPlain();

/** The InvokeRequest in `bytes`, or undefined when it is not in the plain form (or malformed). */
export function readPlainInvokeRequest(bytes: Uint8Array): InvokeRequest | undefined {
  try {
    const reader = new BinaryReader(bytes);
    const request: InvokeRequest = { $typeName: "pluggableharness.tool.v1.InvokeRequest" };
    while (reader.pos < reader.len) {
      const [field, wire] = reader.tag();
      if (field !== 1 || wire !== WireType.LengthDelimited || request.call !== undefined) throw notPlain;
      request.call = readToolCall(reader, lengthEnd(reader));
    }
    return request;
  } catch {
    return undefined;
  }
}

/** Where the length-delimited field whose length is next ends; past the buffer is not plain. */
function lengthEnd(reader: BinaryReader): number {
  const end = reader.uint32() + reader.pos;
  if (end > reader.len) throw notPlain;
  return end;
}

function readToolCall(reader: BinaryReader, end: number): ToolCall {
  const call: ToolCall = { $typeName: "pluggableharness.tool.v1.ToolCall", id: "", toolName: "" };
  let seen = 0;
  while (reader.pos < end) {
    const [field, wire] = reader.tag();
    if (wire !== WireType.LengthDelimited || field < 1 || field > 4 || seen & (1 << field)) throw notPlain;
    seen |= 1 << field;
    if (field === 1) call.id = reader.string(true);
    else if (field === 2) call.toolName = reader.string(true);
    else if (field === 3) call.arguments = readStruct(reader, lengthEnd(reader));
    else call.callContext = readCallContext(reader, lengthEnd(reader));
  }
  if (reader.pos !== end) throw notPlain;
  return call;
}

function readCallContext(reader: BinaryReader, end: number): CallContext {
  const context: CallContext = {
    $typeName: "pluggableharness.common.v1.CallContext",
    sessionId: "",
    turnId: "",
    workingDirectory: "",
  };
  let seen = 0;
  while (reader.pos < end) {
    const [field, wire] = reader.tag();
    if (wire !== WireType.LengthDelimited || field < 1 || field > 3 || seen & (1 << field)) throw notPlain;
    seen |= 1 << field;
    if (field === 1) context.sessionId = reader.string(true);
    else if (field === 2) context.turnId = reader.string(true);
    else context.workingDirectory = reader.string(true);
  }
  if (reader.pos !== end) throw notPlain;
  return context;
}

/** google.protobuf.Struct: its map entries (key 1, value 2, each once) as a JSON object. */
function readStruct(reader: BinaryReader, end: number): JsonObject {
  const json: JsonObject = {};
  while (reader.pos < end) {
    const [field, wire] = reader.tag();
    if (field !== 1 || wire !== WireType.LengthDelimited) throw notPlain;
    const entryEnd = lengthEnd(reader);
    let key: string | undefined;
    let value: JsonValue | undefined;
    while (reader.pos < entryEnd) {
      const [entryField, entryWire] = reader.tag();
      if (entryWire !== WireType.LengthDelimited) throw notPlain;
      if (entryField === 1 && key === undefined) key = reader.string(true);
      else if (entryField === 2 && value === undefined) value = readValue(reader, lengthEnd(reader));
      else throw notPlain;
    }
    if (key === undefined || value === undefined || reader.pos !== entryEnd) throw notPlain;
    // As protobuf-es sets a key: "__proto__" is an own property, never the prototype.
    if (key === "__proto__")
      Object.defineProperty(json, key, { value, writable: true, enumerable: true, configurable: true });
    else json[key] = value;
  }
  if (reader.pos !== end) throw notPlain;
  return json;
}

/** google.protobuf.Value holding exactly one kind, as JSON. */
function readValue(reader: BinaryReader, end: number): JsonValue {
  if (reader.pos >= end) throw notPlain;
  const [field, wire] = reader.tag();
  let value: JsonValue;
  if (field === 1 && wire === WireType.Varint) {
    reader.int32();
    value = null;
  } else if (field === 2 && wire === WireType.Bit64) value = reader.double();
  else if (field === 3 && wire === WireType.LengthDelimited) value = reader.string(true);
  else if (field === 4 && wire === WireType.Varint) value = reader.bool();
  else if (field === 5 && wire === WireType.LengthDelimited) value = readStruct(reader, lengthEnd(reader));
  else if (field === 6 && wire === WireType.LengthDelimited) value = readList(reader, lengthEnd(reader));
  else throw notPlain;
  if (reader.pos !== end) throw notPlain;
  return value;
}

/** google.protobuf.ListValue: its values (field 1) as a JSON array. */
function readList(reader: BinaryReader, end: number): JsonValue[] {
  const list: JsonValue[] = [];
  while (reader.pos < end) {
    const [field, wire] = reader.tag();
    if (field !== 1 || wire !== WireType.LengthDelimited) throw notPlain;
    list.push(readValue(reader, lengthEnd(reader)));
  }
  if (reader.pos !== end) throw notPlain;
  return list;
}
