/**
 * ProcessToolContext.spawn: runs a child without a shell, streams its stdout and stderr as output
 * chunks in arrival order, reports its exit once all output is read, and kills its whole process
 * group (SIGTERM, then SIGKILL after a grace) when the call is cancelled, times out or the provider
 * shuts down. While the kernel reads slower than the child writes, both pipes are paused: the
 * child then blocks on a full pipe instead of the provider buffering its output.
 *
 * The host's Kill (docs/transport.md#the-kernels-handshake) — children must not inherit the
 * provider's stdout/stderr (they would hold the host's pipes open) and must be gone well inside the
 * host's 2 s.
 * seed: Invoke — output_chunk ordering within a stream MUST be preserved.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { ToolError } from "../../errors/tool-error.js";
import type { ChildExit } from "../../provider/tool-context.js";

/** Every live child of the provider, so that shutdown can kill them all. */
export class ChildRegistry {
  readonly #live = new Map<ChildProcess, Promise<void>>();

  /** How many children are still running (or still have their pipes open). */
  get size(): number {
    return this.#live.size;
  }

  /** Tracks a child until `closed` settles. */
  track(child: ChildProcess, closed: Promise<void>): void {
    this.#live.set(child, closed);
    void closed.finally(() => this.#live.delete(child));
  }

  /** SIGTERM to every child's group, SIGKILL after `graceMs`; resolves when all are closed or the grace is over. */
  async killAll(graceMs: number): Promise<void> {
    if (this.#live.size === 0) return;
    const children = [...this.#live.entries()];
    for (const [child] of children) signalGroup(child, "SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(children.map(([, closed]) => closed)), graceOver]);
    clearTimeout(timer);
    for (const [child] of children) signalGroup(child, "SIGKILL");
  }
}

/**
 * Told of each child's process group while it may run: serve() points this at the orphan
 * watchdog (runtime/supervisor), which ends the groups if the provider is SIGKILLed. `watch` may
 * return what blocks until the group is watched: the runtime calls it before it passes on the
 * child's first output and before the call ends, so nobody can have seen a child whose group is
 * not watched yet (a host that kills the provider on that output leaves no orphan).
 */
export interface ChildGroupWatch {
  watch(pgid: number): (() => void) | undefined;
  forget(pgid: number): void;
}

let groupWatch: ChildGroupWatch | undefined;
/** The pids of the children spawnChild started that have not closed yet, process-wide. */
const spawnedPids = new Set<number>();

/** Sets (or, with undefined, removes) the watch of every child spawned from now on. */
export function watchChildGroups(watch: ChildGroupWatch | undefined): void {
  groupWatch = watch;
}

/** The children ctx.spawn started that are still open: the ones the runtime itself ends. */
export function spawnedChildPids(): ReadonlySet<number> {
  return spawnedPids;
}

/** Whether the process group `pgid` still has a member. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signals the child's process group (the child and everything it started); never throws. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

/** What spawnChild reports to, and how it learns to stop. */
export interface ChildHooks {
  /** Aborted on cancellation, timeout or shutdown: the group is then killed. */
  readonly signal: AbortSignal;
  /**
   * One chunk of output, in arrival order. A returned promise asks for a pause: no more output is
   * read from the child until it resolves.
   */
  readonly output: (stream: "stdout" | "stderr", data: Uint8Array) => Promise<void> | undefined | void;
  readonly registry: ChildRegistry;
  /** Between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
}

/** Options of one child, already resolved. */
export interface ChildOptions {
  readonly cwd: string;
  readonly env?: { readonly [name: string]: string };
  readonly stdin?: string | Uint8Array;
}

/**
 * What a go-plugin host sets for its plugin: the kernel's magic cookie and go-plugin's PLUGIN_*
 * variables. A child that is itself a go-plugin program would take them as its own launch (and
 * wait for a host that never comes), so children inherit the provider's environment without them.
 */
const hostOnlyVariables = new Set([
  "PLUGGABLEHARNESS_AGENT_PLUGIN",
  "PLUGIN_MIN_PORT",
  "PLUGIN_MAX_PORT",
  "PLUGIN_PROTOCOL_VERSIONS",
  "PLUGIN_CLIENT_CERT",
  "PLUGIN_UNIX_SOCKET_DIR",
  "PLUGIN_UNIX_SOCKET_GROUP",
  "PLUGIN_MULTIPLEX_GRPC",
  // runtime/supervisor/supervisor-channel.ts: the supervisor's marker and its channel's version
  // (serve() removes them too).
  "HARNESS_TOOL_SUPERVISED",
  "HARNESS_TOOL_SUPERVISOR_CHANNEL",
]);

/** `env` without the variables meant for the provider alone. */
export function inheritedEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !hostOnlyVariables.has(name)));
}

function spawnFailure(command: string, error: NodeJS.ErrnoException): ToolError {
  const details = { command, code: error.code ?? "", message: error.message };
  if (error.code === "ENOENT")
    return new ToolError("not_found", `command ${JSON.stringify(command)} was not found`, { details, cause: error });
  if (error.code === "EACCES" || error.code === "EPERM") {
    return new ToolError("permission_denied", `command ${JSON.stringify(command)} may not be executed`, {
      details,
      cause: error,
    });
  }
  return new ToolError(
    "execution_failed",
    `command ${JSON.stringify(command)} could not be started: ${error.message}`,
    { details, cause: error },
  );
}

/**
 * Runs `command` with `args` (no shell) and resolves with how it ended once its output is fully
 * read. Rejects only when the process cannot be started: `not_found` (no such command),
 * `permission_denied`, else `execution_failed`. A non-zero exit is not an error.
 */
export function spawnChild(
  command: string,
  args: readonly string[],
  options: ChildOptions,
  hooks: ChildHooks,
): Promise<ChildExit> {
  if (hooks.signal.aborted) return Promise.reject(hooks.signal.reason);
  return new Promise<ChildExit>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, [...args], {
        cwd: options.cwd,
        env: options.env ?? inheritedEnvironment(process.env),
        shell: false,
        // A process group of its own, so cancellation reaches grandchildren too.
        detached: true,
        windowsHide: true,
        stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (error) {
      reject(spawnFailure(command, error as NodeJS.ErrnoException));
      return;
    }
    let exit: ChildExit = { exitCode: -1 };
    let started = false;
    let settle: () => void = () => {};
    const closed = new Promise<void>((done) => {
      settle = done;
    });
    let killTimer: NodeJS.Timeout | undefined;
    let watched: (() => void) | undefined;
    const confirmWatched = (): void => {
      const confirm = watched;
      watched = undefined;
      confirm?.();
    };
    const onAbort = (): void => {
      signalGroup(child, "SIGTERM");
      killTimer = setTimeout(() => signalGroup(child, "SIGKILL"), hooks.killGraceMs);
    };

    child.once("spawn", () => {
      started = true;
      hooks.registry.track(child, closed);
      if (child.pid !== undefined) {
        spawnedPids.add(child.pid);
        watched = groupWatch?.watch(child.pid);
      }
    });
    child.once("error", (error: NodeJS.ErrnoException) => {
      if (started) return; // A failed kill() after start; 'close' still follows.
      hooks.signal.removeEventListener("abort", onAbort);
      settle();
      reject(spawnFailure(command, error));
    });
    // Both pipes pause together, so their interleaving stays the order in which they were read.
    let paused = false;
    const forward = (stream: "stdout" | "stderr", chunk: Buffer): void => {
      confirmWatched();
      const wait = hooks.output(stream, chunk);
      if (!wait || paused) return;
      paused = true;
      child.stdout?.pause();
      child.stderr?.pause();
      void wait.then(() => {
        paused = false;
        child.stdout?.resume();
        child.stderr?.resume();
      });
    };
    child.stdout?.on("data", (chunk: Buffer) => forward("stdout", chunk));
    child.stderr?.on("data", (chunk: Buffer) => forward("stderr", chunk));
    child.once("exit", (code, signal) => {
      exit = code === null ? { exitCode: -1, ...(signal ? { signal } : {}) } : { exitCode: code };
    });
    // 'close' comes after 'exit' and after every stdio stream ended: all output was reported.
    child.once("close", () => {
      confirmWatched();
      if (child.pid !== undefined && spawnedPids.delete(child.pid) && !groupAlive(child.pid))
        groupWatch?.forget(child.pid);
      hooks.signal.removeEventListener("abort", onAbort);
      if (killTimer && !hooks.signal.aborted) clearTimeout(killTimer);
      settle();
      if (started) resolve(exit);
    });
    hooks.signal.addEventListener("abort", onAbort, { once: true });

    if (options.stdin !== undefined && child.stdin) {
      // A child that does not read its stdin closes it early: EPIPE is not the call's failure.
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
  });
}

/**
 * A child the provider keeps for its whole life (an imported MCP server, runtime/mcp) watched as
 * ctx.spawn's children are: counted as the runtime's own, and its group told to the orphan
 * watchdog. Returns what forgets it once it has closed.
 */
export function superviseProviderChild(pid: number): () => void {
  spawnedPids.add(pid);
  groupWatch?.watch(pid)?.();
  return () => {
    if (spawnedPids.delete(pid) && !groupAlive(pid)) groupWatch?.forget(pid);
  };
}
