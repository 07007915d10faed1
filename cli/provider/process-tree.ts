/**
 * A provider's process tree, for a deadline that must end all of it: under harness-tool's
 * supervisor, or a wrapper script without `exec`, the process the CLI launched is not the one that
 * serves, and killing only the launched pid would leave the serving process (and the pipes it
 * holds) behind. Linux reads /proc; elsewhere `ps` lists every process with its parent.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

/**
 * The fields of /proc/<pid>/stat after the command name ("state ppid ..."): the name, in
 * parentheses, may itself hold spaces and parentheses, so the fields start after the last ")".
 */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Child pids by parent pid, from /proc (Linux), else from `ps`; empty when neither answers. */
function childrenByParent(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  const add = (pid: number, ppid: number) => byParent.set(ppid, [...(byParent.get(ppid) ?? []), pid]);
  try {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const ppid = Number(statFields(name)[1]);
        add(Number(name), ppid);
      } catch {
        // Gone while listing.
      }
    }
    return byParent;
  } catch {
    // No /proc: ask ps.
  }
  try {
    for (const line of execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8", timeout: 5000 }).split(
      "\n",
    )) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && ppid !== undefined && Number.isInteger(pid) && Number.isInteger(ppid)) add(pid, ppid);
    }
  } catch {
    // No ps either: the root alone.
  }
  return byParent;
}

/** `pid` and every process descended from it, parents before their children. */
export function processTree(pid: number): number[] {
  const byParent = childrenByParent();
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const child of byParent.get(tree[i] as number) ?? []) if (!tree.includes(child)) tree.push(child);
  }
  return tree;
}

/**
 * SIGKILLs `pid` and its descendants (listed first, so none is missed when a parent dies and its
 * children are adopted); returns the pids signalled.
 */
export function killProcessTree(pid: number): number[] {
  const tree = processTree(pid);
  for (const each of tree) {
    try {
      process.kill(each, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return tree;
}

/** True while `pid` is a process that has not exited (a zombie has: only its parent's wait is left). */
function running(pid: number): boolean {
  if (existsSync("/proc/self/stat")) {
    try {
      return statFields(pid)[0] !== "Z";
    } catch {
      return false; // No /proc entry: gone.
    }
  }
  // No /proc: the kernel says whether the pid is still there (a zombie counts as there).
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves once none of `pids` is running any more, or after `timeoutMs`: a SIGKILL is delivered
 * asynchronously, so a process signalled a moment ago may still be on its way out.
 */
export async function processesGone(pids: readonly number[], timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (pids.some(running) && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
}
