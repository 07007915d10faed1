/**
 * Flag values several commands share, read the same way by each so a mistake is worded once:
 * `--cwd <dir>` and JSON object files (`--config`, `--args-file`); and Ctrl-C as a cancel. The
 * faults themselves are worded in cli/terminal/fault-wording.ts.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { JsonObject } from "@bufbuild/protobuf";
import { parseJsonObject, unreadableFileText } from "../terminal/fault-wording.js";
import { UsageError } from "../terminal/usage-error.js";

/** The working directory a call runs in: it must exist, as it would for the kernel. */
export function workingDirectory(given: string | undefined): string {
  if (given === undefined) return process.cwd();
  const resolved = path.resolve(given);
  let isDirectory = false;
  try {
    isDirectory = statSync(resolved).isDirectory();
  } catch {
    throw new UsageError(`--cwd ${given}: no such directory`);
  }
  if (!isDirectory) throw new UsageError(`--cwd ${given} is not a directory`);
  return resolved;
}

/** The JSON object in `file`, given as `flag`; a UsageError saying which when it is unreadable, not JSON or not an object. */
export function readJsonObjectFile(file: string, flag: string): JsonObject {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(unreadableFileText(`${flag} ${file}`, e));
  }
  return parseJsonObject(text, `${flag} ${file}`, (message) => new UsageError(message)) as JsonObject;
}

/** Runs `command` with a signal Ctrl-C aborts (the call is cancelled as the kernel cancels it), for as long as it runs. */
export async function withCtrlC<T>(command: (interrupt: AbortSignal) => Promise<T>): Promise<T> {
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once("SIGINT", onSigint);
  try {
    return await command(interrupt.signal);
  } finally {
    process.off("SIGINT", onSigint);
  }
}
