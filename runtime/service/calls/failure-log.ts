/**
 * Where the stack of a failure goes: the kernel's log (a JSON line at error level through the
 * service's stderr exit, so redacted), never the ToolError the model reads. docs/runtime.md#errors.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { stderrLogLine } from "../kernel/kernel-bindings.js";

/** The `log` of NormalizeErrorOptions: one error line with the message and the stack as a field. */
export function failureLog(
  stderr: (line: string) => void,
  fields?: JsonObject,
): (message: string, stack: string) => void {
  return (message, stack) => stderr(stderrLogLine("error", message, { ...fields, stack }));
}
