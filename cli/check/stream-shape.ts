/**
 * The Invoke stream rules, checked on the events a provider actually sent (seed: Invoke; wire
 * facts §5). Works on any provider: it needs only the wire ToolSchema and the events.
 */
import {
  ToolErrorCategory,
  type ToolEvent,
  type ToolSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { JsonSchema } from "harness-tool";
import { jsonSchemaFromWire, validateValue } from "harness-tool/schema";

/** A broken stream rule. */
export interface StreamProblem {
  readonly rule:
    | "one-terminal"
    | "terminal-last"
    | "intermediate-needs-streaming"
    | "exit-status-once"
    | "output-conforms"
    | "error-category";
  readonly message: string;
}

/** How the stream ended on the client's side. */
export interface StreamEnding {
  /** The client cancelled the call before the stream closed. */
  readonly cancelled: boolean;
}

/** Every stream rule the events break. After a cancel, no terminal event may follow at all. */
export function checkInvokeStream(
  tool: ToolSchema,
  events: readonly ToolEvent[],
  ending: StreamEnding,
): StreamProblem[] {
  const problems: StreamProblem[] = [];
  const terminals = events.filter((e) => e.event.case === "result" || e.event.case === "error");
  if (ending.cancelled) {
    if (terminals.length > 0)
      problems.push({
        rule: "one-terminal",
        message: `a terminal ${terminals[0]?.event.case} was sent after the call was cancelled`,
      });
  } else if (terminals.length !== 1) {
    problems.push({ rule: "one-terminal", message: `expected exactly one result or error, got ${terminals.length}` });
  }
  const lastIndex = events.length - 1;
  events.forEach((e, i) => {
    if ((e.event.case === "result" || e.event.case === "error") && i !== lastIndex) {
      problems.push({
        rule: "terminal-last",
        message: `the ${e.event.case} at position ${i + 1} of ${events.length} is followed by more events`,
      });
    }
  });
  const intermediates = events.filter(
    (e) => e.event.case === "outputChunk" || e.event.case === "progress" || e.event.case === "partialResult",
  );
  if (!tool.streaming && intermediates.length > 0) {
    problems.push({
      rule: "intermediate-needs-streaming",
      message: `the tool declares streaming: false but sent ${intermediates.length} intermediate event(s)`,
    });
  }
  const exits = events.filter((e) => e.event.case === "exitStatus");
  if (exits.length > 1)
    problems.push({ rule: "exit-status-once", message: `exit_status was sent ${exits.length} times` });
  if (exits.length > 0 && !tool.streaming)
    problems.push({
      rule: "exit-status-once",
      message: "exit_status from a tool that does not stream (only process-backed tools emit it)",
    });
  for (const e of terminals) {
    if (e.event.case === "result") {
      const payload = e.event.value.payload; // protobuf-es surfaces google.protobuf.Struct fields as JSON objects
      const schema = tool.outputSchema ? (jsonSchemaFromWire(tool.outputSchema) as unknown as JsonSchema) : undefined;
      if (payload === undefined) problems.push({ rule: "output-conforms", message: "the result has no payload" });
      else if (schema) {
        for (const v of validateValue(schema, payload))
          problems.push({ rule: "output-conforms", message: `result ${v.path || "/"} ${v.message}` });
      }
    } else if (e.event.case === "error") {
      const category = e.event.value.category;
      if (category === ToolErrorCategory.PROCESS_CRASHED)
        problems.push({ rule: "error-category", message: "PROCESS_CRASHED is synthesized by the kernel only" });
      if (category === ToolErrorCategory.UNSPECIFIED)
        problems.push({ rule: "error-category", message: "the error has no category (every failure is classified)" });
      if (category === ToolErrorCategory.UNKNOWN && !e.event.value.details)
        problems.push({ rule: "error-category", message: "an UNKNOWN error must carry the raw error in details" });
    }
  }
  return problems;
}
