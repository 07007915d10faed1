/**
 * Running the tools a release is built with (npm, tar, node, postject) as child processes: their
 * output is collected, never shown, and a failure is one line saying what the tool said. Inside
 * withToolDeadline() every tool runs under the command's deadline: at it the tool still running is
 * killed (SIGKILL) and fails as a ToolDeadline.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { spawn } from "node:child_process";
import path from "node:path";

/** A tool that exited non-zero: its last meaningful line, and everything it wrote. */
export class ToolFailure extends Error {
  override readonly name: string = "ToolFailure";
  constructor(
    message: string,
    readonly stderr: string,
    readonly stdout: string,
  ) {
    super(message);
  }
}

/** A tool still running at the command's deadline, killed there. */
export class ToolDeadline extends ToolFailure {
  override readonly name = "ToolDeadline";
}

/** The deadline's signal of the work withToolDeadline() runs. */
const deadlines = new AsyncLocalStorage<AbortSignal>();

/** Runs `work` with every runTool() inside it killed when `signal` aborts (the command's deadline). */
export function withToolDeadline<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return deadlines.run(signal, work);
}

/** Lines that say nothing about the failure: npm's log pointer, parsers' warnings, JSON's brackets, blank lines. */
function meaningful(line: string): boolean {
  return !/^[{}[\],]*$/.test(line) && !line.startsWith("A complete log of this run") && !line.startsWith("warning:");
}

/** Runs `command` in `cwd`; resolves with its stdout, rejects with a ToolFailure. */
export function runTool(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const signal = deadlines.getStore();
    const child = spawn(command, args, {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      ...(signal === undefined ? {} : { signal, killSignal: "SIGKILL" as const }),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", (error) => {
      if (error.name !== "AbortError") return reject(error);
      const running = [path.basename(command), args[0]].filter((part) => part !== undefined).join(" ");
      reject(new ToolDeadline(`${running} was still running at the deadline and was killed`, "", ""));
    });
    child.once("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8");
      if (code === 0) return resolve(stdout);
      const stderr = Buffer.concat(err).toString("utf8");
      const lines = `${stderr}\n${stdout}`
        .split("\n")
        .map((l) => l.replace(/^npm (error|ERR!) /, "").trim())
        .filter(meaningful);
      reject(new ToolFailure(lines.at(-1) ?? `${command} exited with code ${code}`, stderr, stdout));
    });
  });
}
