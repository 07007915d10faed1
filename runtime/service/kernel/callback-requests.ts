/**
 * The kernel callback requests a provider builds, checked before they reach the kernel: Emit's
 * kind and schema_version, the typed event.v1 payloads of `emitEvent`, and RunSession bound to the
 * calling session as its parent. A refusal is a ToolError `unknown` naming the rule: uncaught, it is
 * the call's terminal error, as any provider bug.
 *
 * kernel: kernel-callbacks.md (Emit) — EventKind's zero value is never valid on the wire,
 * schema_version MUST be set ("1" for event.v1), EVENT_KIND_HOOK_ERROR is the kernel's to
 * synthesize; api kernel.v1 RunSessionRequest.parent_session_id MUST be the calling session's id.
 * api event.v1 — the payload message of each kind.
 */
import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import {
  ContextContributionEventSchema,
  MemoryMutationEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
} from "../../generated/pluggableharness/event/v1/event_pb.js";
import { EventKind, RunSessionRequestSchema } from "../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { ToolError } from "../../errors/tool-error.js";
import { eventSchemaVersion, type EmittedEvent } from "../../provider/tool-context.js";

function refused(callback: "Emit" | "RunSession", rule: string, message: string, details: object): ToolError {
  return new ToolError("unknown", `${callback} refused before it reached the kernel: ${message}`, {
    details: { callback, rule, ...details } as never,
  });
}

/** Throws the refusal of an Emit the kernel must never receive. */
export function checkEmitRequest(kind: EventKind, schemaVersion: string): void {
  const details = { kind: EventKind[kind] ?? kind, schema_version: schemaVersion };
  if (kind === EventKind.UNSPECIFIED)
    throw refused(
      "Emit",
      "emit-kind",
      "its kind is EVENT_KIND_UNSPECIFIED, never valid on the wire (name the event's kind, e.g. EventKind.TOOL_RESULT)",
      details,
    );
  if (EventKind[kind] === undefined)
    throw refused("Emit", "emit-kind", `${String(kind)} is not an EventKind (use one of EventKind's values)`, details);
  if (kind === EventKind.HOOK_ERROR)
    throw refused(
      "Emit",
      "emit-kind",
      "EVENT_KIND_HOOK_ERROR is synthesized by the kernel for a failing hook subscriber (a provider never emits it)",
      details,
    );
  if (typeof schemaVersion !== "string" || schemaVersion === "")
    throw refused(
      "Emit",
      "emit-schema-version",
      `its schema_version is empty (name the payload's shape: "${eventSchemaVersion}" for an event.v1 message; Render must keep decoding every version emitted)`,
      details,
    );
}

const payloadSchemas = {
  tool_call: [EventKind.TOOL_CALL, ToolCallEventSchema],
  tool_result: [EventKind.TOOL_RESULT, ToolResultEventSchema],
  context_contribution: [EventKind.CONTEXT_CONTRIBUTION, ContextContributionEventSchema],
  memory_write: [EventKind.MEMORY_WRITE, MemoryMutationEventSchema],
  memory_update: [EventKind.MEMORY_UPDATE, MemoryMutationEventSchema],
  memory_delete: [EventKind.MEMORY_DELETE, MemoryMutationEventSchema],
} as const;

/** A typed event.v1 payload as Emit's kind and bytes; schema_version is `eventSchemaVersion`. */
export function encodeEvent(event: EmittedEvent): { kind: EventKind; payload: Uint8Array } {
  const entry = (payloadSchemas as { readonly [kind: string]: (typeof payloadSchemas)[keyof typeof payloadSchemas] })[
    event?.kind
  ];
  if (!entry)
    throw refused(
      "Emit",
      "emit-kind",
      `emitEvent() takes the kinds a provider emits (${Object.keys(payloadSchemas).join(", ")}), not ${JSON.stringify(event?.kind)}`,
      { kind: String(event?.kind) },
    );
  const [kind, schema] = entry;
  const message = create(
    schema as typeof ToolCallEventSchema,
    event.payload as MessageInitShape<typeof ToolCallEventSchema>,
  );
  return { kind, payload: toBinary(schema as typeof ToolCallEventSchema, message) };
}

/**
 * RunSession's request with the calling session as its parent. A parent the handler named that
 * is not its own session is refused: a provider starts sub-sessions of the session it serves only.
 */
export function boundRunSessionRequest(
  request: MessageInitShape<typeof RunSessionRequestSchema>,
  sessionId: string,
): ReturnType<typeof create<typeof RunSessionRequestSchema>> {
  const named = request.parentSessionId;
  if (named !== undefined && named !== "" && named !== sessionId)
    throw refused(
      "RunSession",
      "run-session-parent",
      `parent_session_id ${JSON.stringify(named)} is not the calling session ${JSON.stringify(sessionId)} (leave it unset: the runtime binds the call's session)`,
      { parent_session_id: named, session_id: sessionId },
    );
  return create(RunSessionRequestSchema, { ...request, parentSessionId: sessionId });
}
