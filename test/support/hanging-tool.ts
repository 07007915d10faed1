/**
 * A command-line tool that never finishes, for the deadlines of commands that run tools (release's
 * npm, diff's git): it writes its pid to `<file>.pid`, then sleeps a minute as that same pid.
 */
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Whether `pid` is still a process (a zombie counts until its parent reaps it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An executable `name` in `dir` that hangs; `pidFile` holds its pid once it runs. */
export function hangingTool(dir: string, name: string): { command: string; pidFile: string } {
  const command = path.join(dir, name);
  const pidFile = `${command}.pid`;
  writeFileSync(command, `#!/bin/sh\necho $$ > "${pidFile}"\nexec sleep 60\n`);
  chmodSync(command, 0o755);
  return { command, pidFile };
}

/** Waits (up to 10 s) until the tool whose pid is in `pidFile` is gone; fails if it never ran or lives on. */
export async function toolGone(pidFile: string): Promise<void> {
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  assert.ok(pid > 0, "the tool wrote its pid");
  for (let i = 0; i < 200 && alive(pid); i++) await sleep(50);
  assert.equal(alive(pid), false, `the tool (pid ${pid}) was killed`);
}
