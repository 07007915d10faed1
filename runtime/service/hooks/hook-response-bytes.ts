/**
 * DispatchHookResponse bytes, built by the runtime, never by a handler. A transform's payload is
 * cut from the request's own bytes: the identity answer is the received HookPayload as it arrived,
 * and at pre-model-call only the `messages` entries are replaced, every other field (the model,
 * any field this runtime does not know) copied byte for byte, in place.
 *
 * hook-dispatch.md — a transform response MUST be the request's variant and MUST NOT change an
 * immutable field; a transform at a point with nothing mutable returns the payload byte-identical.
 */
import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { MessageSchema } from "../../generated/pluggableharness/content/v1/content_pb.js";
import { DispatchHookResponseSchema, HookDecision } from "../../generated/pluggableharness/hook/v1/hook_pb.js";

/** Field numbers of the messages cut here (hook.proto). */
const fieldNumbers = {
  /** DispatchHookRequest.payload */
  requestPayload: 1,
  /** HookPayload.pre_model_call */
  preModelCall: 2,
  /** PreModelCallPayload.messages */
  messages: 1,
  /** DispatchHookResponse.transform */
  responseTransform: 2,
  /** DispatchHookResponse.TransformResult.payload */
  transformPayload: 1,
} as const;

/** One field of an encoded message: its number and its bytes, tag included. */
interface WireField {
  readonly number: number;
  readonly wireType: WireType;
  readonly bytes: Uint8Array;
}

/** The top-level fields of an encoded message, in the order they arrived. Throws on bad bytes. */
function fieldsOf(message: Uint8Array): WireField[] {
  const reader = new BinaryReader(message);
  const fields: WireField[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const [number, wireType] = reader.tag();
    reader.skip(wireType, number);
    fields.push({ number, wireType, bytes: message.subarray(start, reader.pos) });
  }
  return fields;
}

/** The content of a length-delimited field (without its tag and length). */
function contentOf(field: WireField): Uint8Array {
  const reader = new BinaryReader(field.bytes);
  reader.tag();
  return reader.bytes();
}

/** A length-delimited field. */
function lengthDelimited(number: number, content: Uint8Array): Uint8Array {
  return new BinaryWriter().tag(number, WireType.LengthDelimited).bytes(content).finish();
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1 && parts[0]) return parts[0];
  return Buffer.concat(parts);
}

/**
 * The HookPayload of an encoded DispatchHookRequest, as bytes. A message field that occurs more
 * than once merges, which for bytes is their concatenation; the kernel sends it once.
 */
export function payloadBytesOf(request: Uint8Array): Uint8Array {
  return concat(
    fieldsOf(request)
      .filter((f) => f.number === fieldNumbers.requestPayload && f.wireType === WireType.LengthDelimited)
      .map(contentOf),
  );
}

/** ObserveAck. */
export function observeResponse(): Uint8Array {
  return toBinary(
    DispatchHookResponseSchema,
    create(DispatchHookResponseSchema, { outcome: { case: "observe", value: {} } }),
  );
}

/** VetoResult with the verdict. */
export function vetoResponse(verdict: "allow" | "deny"): Uint8Array {
  const decision = verdict === "allow" ? HookDecision.ALLOW : HookDecision.DENY;
  return toBinary(
    DispatchHookResponseSchema,
    create(DispatchHookResponseSchema, { outcome: { case: "veto", value: { decision } } }),
  );
}

/** TransformResult carrying `payload` (HookPayload bytes) as it is. */
export function transformResponse(payload: Uint8Array): Uint8Array {
  return lengthDelimited(fieldNumbers.responseTransform, lengthDelimited(fieldNumbers.transformPayload, payload));
}

/**
 * `payload` (a HookPayload holding pre_model_call) with its messages replaced by `messages`, put
 * where the first message was (first, when there was none: messages is field 1), every other byte
 * as received.
 */
export function withMessagesReplaced(
  payload: Uint8Array,
  messages: readonly MessageInitShape<typeof MessageSchema>[],
): Uint8Array {
  const encoded = messages.map((m) =>
    lengthDelimited(fieldNumbers.messages, toBinary(MessageSchema, create(MessageSchema, m))),
  );
  const outer = fieldsOf(payload);
  const variants = outer.filter(
    (f) => f.number === fieldNumbers.preModelCall && f.wireType === WireType.LengthDelimited,
  );
  const inner = fieldsOf(concat(variants.map(contentOf)));
  const rebuilt: Uint8Array[] = [];
  let placed = false;
  for (const field of inner) {
    if (field.number !== fieldNumbers.messages) rebuilt.push(field.bytes);
    else if (!placed) {
      rebuilt.push(...encoded);
      placed = true;
    }
  }
  if (!placed) rebuilt.unshift(...encoded);
  const variant = lengthDelimited(
    fieldNumbers.preModelCall,
    concat(rebuilt.length === 0 ? [new Uint8Array(0)] : rebuilt),
  );
  // The variant goes where it was; other top-level fields (unknown ones) stay as they came.
  const out: Uint8Array[] = [];
  let written = false;
  for (const field of outer) {
    if (!variants.includes(field)) out.push(field.bytes);
    else if (!written) {
      out.push(variant);
      written = true;
    }
  }
  return concat(out);
}
