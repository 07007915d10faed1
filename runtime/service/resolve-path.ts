/**
 * The path helper behind ToolContext.resolvePath: resolves a path against the call's working
 * directory and refuses one outside the configured roots.
 *
 * seed: Invoke — call_context.working_directory is what a tool MUST resolve any relative-path
 * argument against. seed: Configure — providers MUST support a capability boundary (allowed roots).
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../errors/tool-error.js";
import { clipText, quoteInput } from "./input-error-bounds.js";

/** Where resolveToolPath resolves from, and what it allows. */
export interface PathBoundary {
  /** CallContext.working_directory; relative paths resolve against it. */
  readonly workingDirectory: string;
  /**
   * The allowed roots, absolute. Absent: any path is allowed. Empty: none is. Prepare them with
   * `prepareRoots` so that symlinked roots compare by their real location.
   */
  readonly roots?: readonly string[];
}

/**
 * The real location of `target` as far as it exists: the deepest existing ancestor is resolved
 * through symlinks, and the segments that do not exist yet (a file about to be created) are
 * appended to it.
 */
export function realLocation(target: string): string {
  const missing: string[] = [];
  let at = target;
  for (;;) {
    try {
      const real = realpathSync.native(at);
      return missing.length === 0 ? real : path.join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(at);
      // ENOENT/ENOTDIR: that part does not exist yet; anything else (EACCES, ELOOP) is kept lexical.
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === at) {
        return missing.length === 0 ? at : path.join(at, ...missing.reverse());
      }
      missing.push(path.basename(at));
      at = parent;
    }
  }
}

/** Absolute, real-location forms of the configured roots; throws on a relative root. */
export function prepareRoots(roots: readonly string[]): string[] {
  return roots.map((root) => {
    if (!path.isAbsolute(root)) throw new TypeError(`allowed root ${JSON.stringify(root)} is not an absolute path`);
    return realLocation(path.resolve(root));
  });
}

function isInside(candidate: string, root: string): boolean {
  if (candidate === root) return true;
  const withSep = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(withSep);
}

/**
 * Resolves `target` against the working directory and returns its real absolute location.
 * Throws a ToolError: `invalid_arguments` for a relative path when the call has no working
 * directory, `permission_denied` when the real location (symlinks followed, so a link cannot
 * escape) is outside every allowed root.
 */
export function resolveToolPath(target: string, boundary: PathBoundary): string {
  if (typeof target !== "string" || target === "" || target.includes("\0")) {
    throw new ToolError(
      "invalid_arguments",
      `${typeof target === "string" ? quoteInput(target) : clipText(String(JSON.stringify(target)))} is not a usable path`,
    );
  }
  if (!path.isAbsolute(target) && !path.isAbsolute(boundary.workingDirectory)) {
    throw new ToolError(
      "invalid_arguments",
      `cannot resolve the relative path ${quoteInput(target)}: the call has no working directory (give an absolute path)`,
    );
  }
  const absolute = path.resolve(boundary.workingDirectory || path.sep, target);
  const real = realLocation(absolute);
  if (boundary.roots === undefined) return real;
  if (boundary.roots.some((root) => isInside(real, root))) return real;
  throw new ToolError("permission_denied", `${quoteInput(target)} is outside the allowed roots`, {
    details: { path: clipText(target), resolved: clipText(real), allowed_roots: [...boundary.roots] },
  });
}
