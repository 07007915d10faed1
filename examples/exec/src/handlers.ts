// The exec provider's bash tool: /bin/sh -c through context.spawn, which streams the child's
// stdout and stderr as output chunks, emits its exit_status, and kills it on cancellation.
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
