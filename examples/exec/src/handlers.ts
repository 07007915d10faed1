// The exec provider's bash tool: /bin/sh -c through context.spawn, which streams the child's
// stdout and stderr as output chunks, emits its exit_status, and kills it on cancellation; a
// stopped command reports how it ended to the kernel's log (context.reportCancelled).
import type { ExecHandlers } from "./gen/examples/exec/v1/exec_tool.js";

/** The exec provider's handlers. */
export const handlers: ExecHandlers = {
  async bash(input, context) {
    const cwd =
      input.working_directory === undefined
        ? context.call.workingDirectory
        : context.resolvePath(input.working_directory);
    const exit = await context.spawn("/bin/sh", ["-c", input.command], {
      cwd,
      env: { ...(process.env as { [name: string]: string }), ...(context.config.env ?? {}) },
      ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
    });
    if (context.signal.aborted) {
      // What had happened before the stop landed: the output already streamed is what the command wrote.
      const how = exit.signal !== undefined ? `was ended by ${exit.signal}` : `exited with code ${exit.exitCode}`;
      await context.reportCancelled({
        message: `bash was stopped; the command ${how}, and the output streamed before it is valid`,
        details: { command: input.command, exit_code: exit.exitCode, ...(exit.signal ? { signal: exit.signal } : {}) },
      });
    }
    return { exit_code: exit.exitCode, ...(exit.signal !== undefined ? { signal: exit.signal } : {}) };
  },

  async previewBash(input, context) {
    const cwd =
      input.working_directory === undefined
        ? context.call.workingDirectory
        : context.resolvePath(input.working_directory);
    return {
      root: { node: { case: "codeBlock", value: { language: "sh", content: `# in ${cwd}\n${input.command}` } } },
    };
  },
};
