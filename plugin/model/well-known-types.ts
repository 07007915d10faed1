/**
 * The google.protobuf well-known types with a documented mapping, and what the rest are refused
 * for. Only mappings with an obvious JSON form are taken (protojson's); anything without a fixed
 * shape is a generation error unless the message carries `(harnesstool.v1.schema).json_schema`.
 */
import type { StringShape, NumberShape, BooleanShape } from "./value-shape.js";

/** A mapped well-known type: its shape, and whether a field of that type is optional by default. */
export interface WellKnownMapping {
  readonly shape: StringShape | NumberShape | BooleanShape;
  /** Wrapper types exist to say "may be absent", so their fields are optional unless required = true. */
  readonly optionalByDefault: boolean;
}

const int64Note = "a 64-bit integer as a JSON number: exact only up to 2^53";
const int32Note = "an integer";

const mapped: { readonly [typeName: string]: WellKnownMapping } = {
  "google.protobuf.Timestamp": {
    shape: { kind: "string", description: 'an RFC 3339 timestamp, e.g. "2024-05-01T12:00:00Z"' },
    optionalByDefault: false,
  },
  "google.protobuf.Duration": {
    shape: { kind: "string", description: 'a duration in seconds with an "s" suffix, e.g. "1.5s"' },
    optionalByDefault: false,
  },
  "google.protobuf.DoubleValue": { shape: { kind: "number" }, optionalByDefault: true },
  "google.protobuf.FloatValue": { shape: { kind: "number" }, optionalByDefault: true },
  "google.protobuf.Int32Value": {
    shape: { kind: "number", integer: true, description: int32Note },
    optionalByDefault: true,
  },
  "google.protobuf.UInt32Value": {
    shape: { kind: "number", integer: true, description: int32Note },
    optionalByDefault: true,
  },
  "google.protobuf.Int64Value": {
    shape: { kind: "number", integer: true, description: int64Note },
    optionalByDefault: true,
  },
  "google.protobuf.UInt64Value": {
    shape: { kind: "number", integer: true, description: int64Note },
    optionalByDefault: true,
  },
  "google.protobuf.BoolValue": { shape: { kind: "boolean" }, optionalByDefault: true },
  "google.protobuf.StringValue": { shape: { kind: "string" }, optionalByDefault: true },
  "google.protobuf.BytesValue": {
    shape: { kind: "string", description: "bytes, base64-encoded" },
    optionalByDefault: true,
  },
};

const refused: { readonly [typeName: string]: string } = {
  "google.protobuf.Struct": "google.protobuf.Struct has no fixed shape, and the subset's objects are closed",
  "google.protobuf.Value": "google.protobuf.Value can be any JSON value, and the subset has no unions",
  "google.protobuf.ListValue":
    "google.protobuf.ListValue holds values of any type, and the subset's arrays have one item type",
  "google.protobuf.Any": "google.protobuf.Any can hold any message, and the subset has no unions",
  "google.protobuf.FieldMask": "google.protobuf.FieldMask has no mapping in harness-tool",
};

/** The mapping of a well-known message type, undefined for other messages. */
export function wellKnownMapping(typeName: string): WellKnownMapping | undefined {
  return mapped[typeName];
}

/** Why a message type is refused outright (a well-known type without a mapping), else undefined. */
export function refusedWellKnownType(typeName: string): string | undefined {
  if (Object.hasOwn(refused, typeName)) return refused[typeName];
  if (typeName.startsWith("google.protobuf.") && typeName !== "google.protobuf.Empty") {
    return `${typeName} is a well-known type without a documented mapping`;
  }
  return undefined;
}

/** The note a 64-bit integer field's description carries. */
export const int64Description = int64Note;

/** The note a 32-bit integer field's description carries. */
export const int32Description = int32Note;

/** The note a bytes field's description carries. */
export const bytesDescription = "bytes, base64-encoded";
