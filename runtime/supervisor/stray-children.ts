/**
 * Children of the provider that ctx.spawn did not start: read at shutdown, after every call has
 * ended and ctx.spawn's children were killed, so what is left was started with raw
 * `child_process` (or by a library) and will outlive the provider. Linux only (/proc); elsewhere
 * there is nothing to read and the list is empty.
 *
 * The runtime cannot end what it does not know; it says so, naming each one
 * (docs/runtime.md#child-processes).
 */
import { readdirSync, readFileSync } from "node:fs";

/** A child process still running. */
export interface StrayChild {
  readonly pid: number;
  /** Its command line, cut at 200 characters. */
  readonly command: string;
}

function childPids(): number[] {
  const pids: number[] = [];
  try {
    // Each thread lists the children it started (CONFIG_PROC_CHILDREN, on by default).
    for (const task of readdirSync(`/proc/${process.pid}/task`)) {
      const text = readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8");
      for (const pid of text.split(" ")) if (pid.trim() !== "") pids.push(Number(pid));
    }
  } catch {
    return [];
  }
  return pids;
}

function commandOf(pid: number): string {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    return command.length > 200 ? `${command.slice(0, 199)}…` : command;
  } catch {
    return "";
  }
}

/** The running children of this process except `known` (zombies, already exited, are left out). */
export function strayChildren(known: ReadonlySet<number>): StrayChild[] {
  const out: StrayChild[] = [];
  for (const pid of childPids()) {
    if (known.has(pid)) continue;
    let state = "";
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    } catch {
      continue;
    }
    if (state === "Z" || state === "X") continue;
    out.push({ pid, command: commandOf(pid) });
  }
  return out;
}
