// The filesystem tools, for real: every path goes through context.resolvePath, which resolves it
// against the call's working directory and refuses anything outside the configured roots.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { ToolError, type RenderTreeInit, type ToolContext } from "harness-tool";
import type { FilesystemHandlers } from "./gen/examples/filesystem/v1/filesystem_tool.js";

const defaultMaxReadBytes = 1024 * 1024;

async function readText(file: string, toolName: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ToolError("not_found", `${toolName}: no file at ${file}`);
    if (code === "EACCES" || code === "EPERM")
      throw new ToolError("permission_denied", `${toolName}: cannot read ${file}`);
    if (code === "EISDIR") throw new ToolError("invalid_arguments", `${toolName}: ${file} is a folder`);
    throw error;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function codePreview(title: string, content: string): RenderTreeInit {
  return {
    root: {
      node: {
        case: "collapsible",
        value: {
          summary: title,
          collapsedByDefault: false,
          children: [{ node: { case: "codeBlock", value: { content } } }],
        },
      },
    },
  };
}

/**
 * Writes `content` to `file`; when the call is stopped (the kernel cancels it), reports what is on
 * disk to the kernel's log before giving up, so the audit log knows whether the file was changed.
 */
async function writeReporting(
  file: string,
  content: string,
  created: boolean,
  context: Pick<ToolContext<unknown>, "signal" | "reportCancelled">,
): Promise<void> {
  try {
    await writeFile(file, content, { encoding: "utf8", signal: context.signal });
  } finally {
    if (context.signal.aborted) {
      const size = await stat(file).then(
        (s) => s.size,
        () => undefined,
      );
      const state =
        size === undefined
          ? "does not exist"
          : size === Buffer.byteLength(content, "utf8")
            ? "was written in full"
            : `holds ${size} bytes, not the ${Buffer.byteLength(content, "utf8")} asked for`;
      await context.reportCancelled({
        message: `the write to ${file} was stopped; the file ${state}`,
        details: { path: file, created_by_this_call: created && size !== undefined, bytes_on_disk: size ?? null },
      });
    }
  }
}

/** The filesystem provider's handlers. */
export const handlers: FilesystemHandlers = {
  async readFile(input, context) {
    const file = context.resolvePath(input.path);
    const max = context.config.max_read_bytes ?? defaultMaxReadBytes;
    const info = await stat(file).catch(() => undefined);
    if (info && info.size > max) {
      throw new ToolError(
        "execution_failed",
        `read_file: ${file} is ${info.size} bytes, more than the configured ${max}`,
      );
    }
    const lines = (await readText(file, "read_file")).split("\n");
    const start = Math.max(1, input.offset ?? 1) - 1;
    const end = input.limit === undefined ? lines.length : Math.min(lines.length, start + Math.max(0, input.limit));
    return {
      content: lines.slice(start, end).join("\n"),
      total_lines: lines.length,
      truncated: start > 0 || end < lines.length,
    };
  },

  async writeFile(input, context) {
    const file = context.resolvePath(input.path);
    const created = !(await exists(file));
    await mkdir(path.dirname(file), { recursive: true });
    await writeReporting(file, input.content, created, context);
    return { path: file, bytes_written: Buffer.byteLength(input.content, "utf8"), created };
  },

  async previewWriteFile(input, context) {
    const file = context.resolvePath(input.path);
    const verb = (await exists(file)) ? "Replace the content of" : "Create";
    return codePreview(`${verb} ${file} (${Buffer.byteLength(input.content, "utf8")} bytes)`, input.content);
  },

  async editFile(input, context) {
    const file = context.resolvePath(input.path);
    const text = await readText(file, "edit_file");
    const found = input.old_text === "" ? 0 : countOccurrences(text, input.old_text);
    if (found === 0)
      throw new ToolError("execution_failed", `edit_file: the text to replace does not occur in ${file}`);
    if (found > 1 && input.replace_all !== true) {
      throw new ToolError(
        "execution_failed",
        `edit_file: the text to replace occurs ${found} times in ${file}; make it unique or set replace_all`,
      );
    }
    const next =
      input.replace_all === true
        ? text.split(input.old_text).join(input.new_text)
        : text.replace(input.old_text, () => input.new_text);
    await writeReporting(file, next, false, context);
    return { path: file, replacements: input.replace_all === true ? found : 1 };
  },

  async previewEditFile(input, context) {
    const file = context.resolvePath(input.path);
    const diff = [
      ...input.old_text.split("\n").map((l) => `- ${l}`),
      ...input.new_text.split("\n").map((l) => `+ ${l}`),
    ].join("\n");
    return codePreview(`Edit ${file}${input.replace_all === true ? " (every occurrence)" : ""}`, diff);
  },
};
