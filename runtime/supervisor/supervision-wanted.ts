/**
 * Whether this process should become the supervisor: only in a process a go-plugin host launched
 * (the kernel's cookie is set), not already supervised (the marker names its parent), and not
 * turned off. A person running the binary by hand, tests that call serve() in-process, and Windows
 * (no process groups, no `/bin/sh`) are served as before. One rule, read in two places: by
 * serve(), and by the executables `harness-tool bundle` and `harness-tool release` write, before
 * the provider's code loads (supervise-before-loading.ts).
 */
import { kernelHandshake } from "../transport/plugin-environment.js";
import { supervisedByParent } from "./supervisor-channel.js";

/** `off` turns the supervisor off for every provider started with this environment. */
export const supervisorVariable = "HARNESS_TOOL_SUPERVISOR";

/** Whether to supervise; `option` is serve()'s `supervise` (undefined before the code loaded). */
export function supervisionWanted(env: NodeJS.ProcessEnv, option: boolean | undefined): boolean {
  if (option === false || env[supervisorVariable] === "off" || process.platform === "win32") return false;
  return env[kernelHandshake.cookieKey] === kernelHandshake.cookieValue && !supervisedByParent(env);
}
