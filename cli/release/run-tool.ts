/**
 * Running the tools a release is built with (npm, tar, node, postject) as child processes: their
 * output is collected, never shown, and a failure is one line saying what the tool said.
 */
import { spawn } from "node:child_process";

/** A tool that exited non-zero: its last meaningful line, and everything it wrote. */
export class ToolFailure extends Error {
  override readonly name = "ToolFailure";
  constructor(
    message: string,
    readonly stderr: string,
    readonly stdout: string,
  ) {
    super(message);
  }
}

/** Lines that say nothing about the failure: npm's log pointer, parsers' warnings, JSON's brackets, blank lines. */
function meaningful(line: string): boolean {
  return !/^[{}[\],]*$/.test(line) && !line.startsWith("A complete log of this run") && !line.startsWith("warning:");
}

/** Runs `command` in `cwd`; resolves with its stdout, rejects with a ToolFailure. */
export function runTool(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", reject);
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
