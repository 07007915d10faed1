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
  for (const child of childrenOf(pid)) {
    // A child that cannot be read (a zombie the supervisor inherited across its execve, such as
    // tsx's esbuild service, or one gone since the listing) is not the provider: read on.
    try {
      const environ = readFileSync(`/proc/${child}/environ`, "utf8").split("\0");
      if (environ.includes(`HARNESS_TOOL_SUPERVISED=${pid}`)) return Number(child);
    } catch {
      // Unreadable: not it.
    }
  }
  return pid;
}

/** The children of every thread of `pid` (empty when it is gone or there is no /proc). */
function childrenOf(pid: number): string[] {
  const children: string[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        const listed = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
        if (listed !== "") children.push(...listed.split(" "));
      } catch {
        // The thread ended since the listing.
      }
    }
  } catch {
    // Gone, or no /proc.
  }
  return children;
}
