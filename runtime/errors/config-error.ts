/**
 * A configuration refused by the provider's configure hook, naming the attribute: the same
 * `invalid_arguments` ToolError (with `details.violations`) that Configure's decoder answers for a
 * missing or mistyped attribute, so the kernel and the operator read both alike.
 *
 * seed: Configure — MUST reject with a structured error rather than deferring failure to the
 * first Invoke. docs/runtime.md#the-configure-hook.
 */
import { ToolError } from "./tool-error.js";

/** An attribute name as a JSON Pointer (`db_path` -> `/db_path`); a pointer stays as it is. */
function attributePointer(attribute: string): string {
  if (attribute === "" || attribute.startsWith("/")) return attribute;
  return `/${attribute.replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

/**
 * The error a configure hook throws to refuse a configuration because of one attribute:
 * `configError("db_path", "cannot be opened: no such folder")`. Configure then fails with
 * INVALID_ARGUMENT and an `invalid_arguments` ToolError whose `details.violations` is
 * `[{path: "/db_path", message}]`. `attribute` is the attribute's name as the agent.hcl block
 * spells it, or a JSON Pointer into the config (`/db/password`) for a nested one.
 *
 * @example
 * ```ts
 * import { configError } from "harness-tool";
 *
 * function checkPath(path: string): void {
 *   if (path === "") throw configError("db_path", "must not be empty: name the notes database file");
 * }
 * checkPath("notes.db");
 * ```
 */
export function configError(attribute: string, message: string): ToolError {
  const path = attributePointer(attribute);
  return new ToolError("invalid_arguments", `configuration rejected: ${path || "/"} ${message}`, {
    details: { violations: [{ path, message }] },
  });
}
