/**
 * A span per child process a process-backed tool spawns (`spawn <file name>`, INTERNAL, a child of
 * the Invoke span): the command's file name only, never its directory, arguments, environment or
 * output; then the exit code or the signal that ended it, or the category of the failure to start.
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ChildExit } from "../provider/tool-context.js";
import type { CallTrace } from "./call-spans.js";
import { attributeKeys, runtimeTracer } from "./span-attributes.js";

/** The last path segment of a command: what the span may say about it. */
export function commandFileName(command: string): string {
  const name = command.split(/[\\/]/).pop() ?? "";
  return name === "" ? "command" : name;
}

/** Runs `start` (which spawns the child and resolves once it ended) inside the child's span. */
export async function traceChildProcess(
  call: CallTrace,
  command: string,
  start: () => Promise<ChildExit>,
): Promise<ChildExit> {
  const name = commandFileName(command);
  const span = runtimeTracer().startSpan(
    `spawn ${name}`,
    { kind: SpanKind.INTERNAL, attributes: { [attributeKeys.processName]: name } },
    call.context,
  );
  try {
    const exit = await start();
    if (span.isRecording()) {
      span.setAttribute(attributeKeys.processExitCode, exit.exitCode);
      if (exit.signal !== undefined) span.setAttribute(attributeKeys.processSignal, exit.signal);
    }
    return exit;
  } catch (error) {
    if (span.isRecording()) {
      const category = (error as { category?: unknown } | null)?.category;
      span.setAttribute(attributeKeys.errorType, typeof category === "string" ? category : "unknown");
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw error;
  } finally {
    span.end();
  }
}
