/**
 * The process that serves, for measurements of a launched provider (RSS, CPU, fds, children):
 * under harness-tool's supervisor (runtime/supervisor) the pid a host knows is the supervisor's,
 * and the provider is its child, started with HARNESS_TOOL_SUPERVISED=<supervisor pid>
 * (/proc/<pid>/environ keeps the variable the process started with). Linux; elsewhere, and for a
 * provider without a supervisor, `pid` itself.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The provider's pid under the launched `pid`. */
export function servingPid(pid: number): number {
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(" ")) {
        if (child === "") continue;
        const environ = readFileSync(`/proc/${child}/environ`, "utf8").split("\0");
        if (environ.includes(`HARNESS_TOOL_SUPERVISED=${pid}`)) return Number(child);
      }
    }
  } catch {
    // Gone, or no /proc.
  }
  return pid;
}
