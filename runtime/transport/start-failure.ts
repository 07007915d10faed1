/**
 * A provider that cannot start says why where a go-plugin host shows it. go-plugin v1.8.0 puts
 * the first stdout line into its launch error when that line is not a handshake
 * (`Unrecognized remote plugin message: <line>`), while stderr lines only reach the host's log,
 * and an untagged line (Node's own report of an uncaught exception) only at debug level. So a
 * start failure is written twice: as an error-level log line on stderr with the whole error, and
 * as the one stdout line the provider ever writes, in place of the handshake it could not make.
 */
import { writeSync } from "node:fs";
import { kernelHandshake } from "./plugin-environment.js";
import { hostLog } from "./host-log.js";
import { stackOf } from "../errors/error-stack.js";

/** How the stdout line begins (a supervisor holds such a line until the stderr before it is out). */
export const startFailurePrefix = "harness-tool: the provider cannot start";

/** Long enough for a reason, far below the host's 64 KiB line limit. */
const maxLineLength = 2000;

/**
 * The stdout line: one line, no `|` (four `|`-separated parts would be read as a handshake and
 * the reason lost in a version-parse error).
 */
export function startFailureLine(reason: string): string {
  const flat = reason
    .replace(/:\s*\n\s*/g, ": ")
    .replace(/\s*\n\s*/g, "; ")
    .replace(/\|/g, "/")
    .trim();
  const text = `${startFailurePrefix}: ${flat}`;
  return `${text.length > maxLineLength ? `${text.slice(0, maxLineLength - 1)}…` : text}\n`;
}

/** Reports a start failure on stderr (error level, with the stack) and in the handshake's place on stdout. */
export function reportStartFailure(reason: string, error?: unknown): void {
  hostLog("error", reason, error instanceof Error ? { error: stackOf(error) } : undefined);
  try {
    writeSync(1, startFailureLine(reason));
  } catch {
    // No host on stdout (EPIPE): the stderr line is all there is.
  }
}

/** The message of whatever was thrown. */
function reasonOf(thrown: unknown): string {
  if (thrown instanceof Error)
    return thrown.message === ""
      ? thrown.name
      : `${thrown.name === "Error" ? "" : `${thrown.name}: `}${thrown.message}`;
  return String(thrown);
}

/** Shared by every copy of this module in the process (a bundle beside node_modules, say). */
const guardKey = Symbol.for("harness-tool.start-failure-guard");
interface Guard {
  readonly onException?: (thrown: unknown) => void;
  readonly onExit?: (code: number) => void;
}
type GuardSlot = { [guardKey]?: Guard };

/**
 * Until serve() takes over, a start that ends is a start failure, reported as above: an
 * exception nobody caught (the entry point or a module it imports threw, a top-level await
 * rejected; exit 1), or the process exiting on its own (`process.exit` in start-up code, or an
 * entry point that never calls serve()). Armed only in a process a go-plugin host started (the
 * kernel's cookie is set), so importing harness-tool anywhere else changes nothing. Idempotent.
 */
export function armStartFailureGuard(env: NodeJS.ProcessEnv = process.env): void {
  const slot = globalThis as GuardSlot;
  if (slot[guardKey] || env[kernelHandshake.cookieKey] !== kernelHandshake.cookieValue) return;
  let reported = false;
  const onException = (thrown: unknown) => {
    reported = true;
    reportStartFailure(reasonOf(thrown), thrown);
    process.exit(1);
  };
  const onExit = (code: number) => {
    if (!reported)
      reportStartFailure(
        `the process exited with code ${code} before serve() made the handshake (process.exit during start-up, or serve() never called)`,
      );
  };
  slot[guardKey] = { onException, onExit };
  process.on("uncaughtException", onException);
  process.on("exit", onExit);
}

/** serve() has taken over: from here on its own paths report start failures, and its guards the rest. */
export function disarmStartFailureGuard(): void {
  const slot = globalThis as GuardSlot;
  const guard = slot[guardKey];
  if (guard?.onException) process.off("uncaughtException", guard.onException);
  if (guard?.onExit) process.off("exit", guard.onExit);
  // An empty guard, not none: a copy of this module loaded later must not arm again.
  slot[guardKey] = {};
}
