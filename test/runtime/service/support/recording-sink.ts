// A fake InvokeSink that records every event, and helpers to build Invoke requests.
import { create, type JsonObject } from "@bufbuild/protobuf";
import {
  InvokeRequestSchema,
  type InvokeRequest,
  type ToolError,
  type ToolEvent,
} from "../../../../generated/pluggableharness/tool/v1/tool_pb.js";
import type { InvokeSink } from "../../../../runtime/service/calls/index.js";

/** A sink recording events, with a cancel() standing in for the kernel closing the stream. */
export interface RecordingSink {
  readonly sink: InvokeSink;
  readonly events: ToolEvent[];
  cancel(): void;
  /** The oneof cases of the recorded events, in order. */
  cases(): string[];
  /** The terminal events (result or error) recorded. */
  terminals(): ToolEvent[];
}

/** A new recording sink. `onSend` runs after each event is recorded. */
export function recordingSink(onSend?: (event: ToolEvent) => void): RecordingSink {
  const controller = new AbortController();
  const events: ToolEvent[] = [];
  return {
    sink: {
      send(response) {
        if (!response.event) throw new Error("InvokeResponse without an event");
        events.push(response.event);
        onSend?.(response.event);
      },
      cancelled: controller.signal,
    },
    events,
    cancel: () => controller.abort(),
    cases: () => events.map((e) => String(e.event.case)),
    terminals: () => events.filter((e) => e.event.case === "result" || e.event.case === "error"),
  };
}

/** An InvokeRequest for `toolName` with these arguments. */
export function invokeRequest(
  toolName: string,
  args: JsonObject = {},
  context: { sessionId?: string; turnId?: string; workingDirectory?: string; id?: string } = {},
): InvokeRequest {
  return create(InvokeRequestSchema, {
    call: {
      id: context.id ?? "call-1",
      toolName,
      arguments: args,
      callContext: {
        sessionId: context.sessionId ?? "session-1",
        turnId: context.turnId ?? "turn-1",
        workingDirectory: context.workingDirectory ?? "/tmp",
      },
    },
  });
}

/** The single terminal event of a recording, asserting there is exactly one. */
export function onlyTerminal(recording: RecordingSink): ToolEvent["event"] {
  const terminals = recording.terminals();
  if (terminals.length !== 1)
    throw new Error(`expected exactly one terminal event, got ${terminals.length}: ${recording.cases().join(", ")}`);
  const last = recording.events[recording.events.length - 1];
  if (last !== terminals[0]) throw new Error(`the terminal event is not the last one: ${recording.cases().join(", ")}`);
  return terminals[0]!.event;
}

/** The single terminal event, asserting it is an error. */
export function terminalError(recording: RecordingSink): ToolError {
  const terminal = onlyTerminal(recording);
  if (terminal.case !== "error") throw new Error(`expected a terminal error, got ${String(terminal.case)}`);
  return terminal.value;
}

/** Resolves after `ms` milliseconds (for letting timers and children run, never for bounds). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
