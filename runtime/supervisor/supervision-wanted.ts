/**
 * Whether serve() should become the supervisor: only in a process a go-plugin host launched (the
 * kernel's cookie is set), not already supervised, and not turned off. A person running the
 * binary by hand, tests that call serve() in-process, and Windows (no process groups, no
 * `/bin/sh`) are served as before.
 */
import { kernelHandshake } from "../transport/plugin-environment.js";

/** `off` turns the supervisor off for every provider started with this environment. */
export const supervisorVariable = "HARNESS_TOOL_SUPERVISOR";

/** Whether to supervise; `option` is serve()'s `supervise`. */
export function supervisionWanted(env: NodeJS.ProcessEnv, option: boolean | undefined): boolean {
  if (option === false || env[supervisorVariable] === "off" || process.platform === "win32") return false;
  return env[kernelHandshake.cookieKey] === kernelHandshake.cookieValue;
}
