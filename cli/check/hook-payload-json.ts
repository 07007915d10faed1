/**
 * A hook point's payload as protobuf JSON of the point's own message (PlanReadyPayload for
 * plan-ready, ...), both ways: what `harness-tool hook --payload` reads and the inspector's Hooks
 * panel edits, and what check's samples look like to a person.
 */
import { create, fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { HookPayloadSchema, type HookPayload } from "harness-tool/generated/pluggableharness/hook/v1/hook_pb.js";
import type { HookPointName } from "harness-tool";
import { hookPointTable } from "harness-tool/hook-points";
import { hookPayloadSchemas } from "harness-tool/host";

/** A payload that is not the point's message. */
export class HookPayloadJsonError extends Error {
  override readonly name = "HookPayloadJsonError";
  constructor(
    /** "PlanReadyPayload". */
    readonly messageName: string,
    /** What protobuf-es found wrong, without its "cannot decode message" prefix. */
    readonly reason: string,
  ) {
    super(`not a ${messageName} (protobuf JSON): ${reason}`);
  }
}

/** `json` decoded as `point`'s message, inside a HookPayload; a HookPayloadJsonError saying what is wrong otherwise. */
export function hookPayloadFromJson(point: HookPointName, json: JsonValue): HookPayload {
  const schema = hookPayloadSchemas[point];
  try {
    const value = fromJson(schema, json);
    return create(HookPayloadSchema, { payload: { case: hookPointTable[point].variant, value } } as never);
  } catch (e) {
    throw new HookPayloadJsonError(
      schema.name,
      (e as Error).message.replace(/^cannot decode message \S+ from JSON: /, ""),
    );
  }
}

/** The message inside `payload` (whichever point's it is) as protobuf JSON; `{}` for an empty payload. */
export function hookPayloadJson(payload: HookPayload): JsonObject {
  return (Object.values(toJson(HookPayloadSchema, payload) as JsonObject)[0] ?? {}) as JsonObject;
}
