/** Whether processes and socket files are really gone, for the interop and transport tests. */
import { existsSync, readFileSync } from "node:fs";

/** True when `pid` no longer runs (gone, or a zombie nobody reaped yet). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; a zombie has exited already.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** Polls until `check` holds or `timeoutMs` passes; resolves with whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** True when no file (socket) is at `path`. */
export function fileGone(path: string): boolean {
  return !existsSync(path);
}
