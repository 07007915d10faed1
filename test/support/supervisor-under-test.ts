/**
 * The supervisor program the tests run against. By default the launched providers find the Go
 * program the test run installed as this platform's package (test/support/supervisor-package.mjs);
 * HARNESS_TOOL_SUPERVISOR_BINARY in the test run's environment (a path, or `node` for the Node
 * supervisor) is handed to the providers the tests launch supervised. Hosts that build the
 * provider's environment from scratch (the kernel's) need it passed as an operator extra.
 */
import { readlinkSync, realpathSync } from "node:fs";
import { installSupervisorPackage } from "./supervisor-package.mjs";

export function supervisorUnderTest(): { readonly [name: string]: string } {
  const binary = process.env.HARNESS_TOOL_SUPERVISOR_BINARY;
  return binary ? { HARNESS_TOOL_SUPERVISOR_BINARY: binary } : {};
}

/** A supervisor program a test runs under: its name, the environment that picks it, how to tell it ran. */
export interface SupervisorProgram {
  readonly name: string;
  readonly env: { readonly [name: string]: string };
  readonly skip: string | false;
  /** Matches the executable of the launched (supervising) process. */
  readonly executable: RegExp;
}

const installed = installSupervisorPackage();
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The two programs the supervisor tests run each case under (a matrix in the same files): the Go
 * program (the default: the installed package, or a bundle's copy beside its executable) and the
 * Node supervisor (`HARNESS_TOOL_SUPERVISOR_BINARY=node`). The Go one is skipped without Go, on a
 * Node without `process.execve` (before 22.15), and when the test run names a program of its own
 * (the default path is then not in play).
 */
export const supervisorPrograms: readonly SupervisorProgram[] = [
  {
    name: "Go supervisor",
    env: {},
    skip:
      installed.reason ??
      (process.env.HARNESS_TOOL_SUPERVISOR_BINARY
        ? "HARNESS_TOOL_SUPERVISOR_BINARY names the program"
        : process.execve === undefined
          ? `Node ${process.version} has no process.execve`
          : false),
    executable: /\/harness-tool-supervisor(-[a-z]+-[a-z0-9]+)?$/,
  },
  {
    name: "Node supervisor",
    env: { HARNESS_TOOL_SUPERVISOR_BINARY: "node" },
    skip: false,
    executable: new RegExp(`^${escaped(realpathSync(process.execPath))}$`),
  },
];

/** The executable of process `pid` (Linux), or undefined where /proc does not say. */
export function executableOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

/**
 * The transport the tests' providers serve on: HARNESS_TOOL_TRANSPORT in the test run's
 * environment (grpc-js: grpc-js's server) is handed on; unset, node:http2 (the default). launch()
 * and go-plugin's hosts pass it on by themselves; the kernel's environment needs it as an extra.
 */
export function transportUnderTest(): { readonly [name: string]: string } {
  const transport = process.env.HARNESS_TOOL_TRANSPORT;
  return transport ? { HARNESS_TOOL_TRANSPORT: transport } : {};
}
