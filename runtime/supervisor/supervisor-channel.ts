/**
 * The private channel between the supervisor and the provider it started: fd 3 of the provider, a
 * socket pair, one JSON message per line. The provider tells the supervisor the secrets Configure
 * brought (and waits for the answer, so no write after Configure can reach the supervisor's filter
 * before the secret does) and the process groups of its tools' children (which the supervisor's
 * watchdog ends if the supervisor is SIGKILLed). The environment variable carries the
 * supervisor's pid: a provider whose parent is not that process (a child that inherited the
 * variable) is not supervised. A second variable carries the channel's version, which the provider
 * checks before it relies on any answer: a supervisor that speaks another version (or, older, none)
 * is a start failure, not a provider that waits forever for an answer never sent. Last, the
 * provider says it is exiting, with its code: the supervisor SIGKILLs it and exits then, without
 * waiting for the kernel to tear down the provider's memory, and the provider sleeps until that
 * SIGKILL rather than run Node's teardown meanwhile.
 */
import { readlinkSync, readSync, writeSync } from "node:fs";
import * as nodeModule from "node:module";
import { disarmStartFailureGuard, reportStartFailure } from "../transport/start-failure.js";

/** After saying it is exiting, how long the provider waits for the supervisor's SIGKILL before ending by itself. */
const killWaitMs = 100;
/**
 * How long the provider sleeps between looks for an answer not yet there: 50 µs at first (an answer
 * takes the supervisor microseconds), doubling up to 1 ms.
 */
const firstPollMs = 0.05;
const lastPollMs = 1;
/** What Atomics.wait sleeps on. */
const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Set by the supervisor for the provider it starts: its own pid. */
export const supervisedVariable = "HARNESS_TOOL_SUPERVISED";
/** The provider's end of the channel. */
export const channelFd = 3;
/** Set by the supervisor beside the marker: the channel version it speaks. */
export const channelVersionVariable = "HARNESS_TOOL_SUPERVISOR_CHANNEL";
/**
 * The channel this runtime speaks (supervisor-go/main.go has the same number): the messages below,
 * `secrets`, `watchGroup` and `passThrough` each answered with one byte once acted on. Raised with
 * any change a supervisor of the previous version would not honour.
 */
export const channelVersion = 1;

/**
 * A message from the provider to the supervisor. `passThrough`: the provider was started with
 * `serve(p, { supervise: false })` under a supervisor that an executable started before that code
 * could be read (supervise-before-loading.ts); its output goes to the host as it is from now on.
 */
export type ChannelMessage =
  | { readonly secrets: readonly string[] }
  | { readonly watchGroup: number }
  | { readonly forgetGroup: number }
  | { readonly passThrough: true }
  | { readonly exiting: number };

/** The provider's end of the channel. */
export interface SupervisorChannel {
  /** Blocks until the supervisor filters `secrets` too (or is gone). */
  learnSecrets(secrets: readonly string[]): void;
  /**
   * Tells the supervisor a tool's child's process group, which its watchdog ends if the supervisor
   * dies. Returns what blocks until the supervisor has it (at once when it already answered), so
   * the runtime passes on nothing the child says before the group is watched.
   */
  watchGroup(pgid: number): () => void;
  forgetGroup(pgid: number): void;
  /** Blocks until the supervisor passes the provider's stdout and stderr through as they are. */
  passThrough(): void;
  /**
   * Calls process.exit(code), telling the supervisor the code after every other `exit` listener
   * ran: from then on only Node's and the kernel's teardown is left, which it need not wait for;
   * the process then sleeps for the supervisor's SIGKILL (at most 100 ms, then it ends by itself).
   */
  exit(code: number): void;
}

/**
 * Whether this process was started by harness-tool's supervisor: the marker names its parent. Reads
 * the environment only (an executable decides with it before any provider code loads).
 */
export function supervisedByParent(env: NodeJS.ProcessEnv): boolean {
  const marker = env[supervisedVariable];
  return marker !== undefined && Number(marker) === process.ppid;
}

/**
 * The channel when this process was started by harness-tool's supervisor, else undefined. Removes
 * both variables from the environment either way, so no child of the provider inherits them. A
 * supervisor that speaks another channel version, or none, ends the start here (exit 1).
 */
export function supervisorChannel(env: NodeJS.ProcessEnv = process.env): SupervisorChannel | undefined {
  const supervised = supervisedByParent(env);
  const spoken = env[channelVersionVariable];
  delete env[supervisedVariable];
  delete env[channelVersionVariable];
  if (!supervised) return undefined;
  if (spoken !== String(channelVersion)) endForChannelVersion(spoken);
  let open = true;
  const send = (message: ChannelMessage): boolean => {
    if (!open) return false;
    try {
      writeSync(channelFd, `${JSON.stringify(message)}\n`);
      return true;
    } catch {
      // The supervisor is gone (EPIPE): its watchdog is ending this process.
      open = false;
      return false;
    }
  };
  // The supervisor answers one byte per answered message, in order, once it acted on it; EOF means
  // it is gone. `asked` counts the answers owed since the start, `answered` those read.
  let asked = 0;
  let answered = 0;
  const awaitAnswers = (upTo: number): void => {
    const answers = Buffer.alloc(8);
    let pollMs = firstPollMs;
    while (open && answered < upTo) {
      try {
        const read = readSync(channelFd, answers, 0, Math.min(answers.length, upTo - answered), null);
        if (read === 0) open = false;
        answered += read;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") {
          Atomics.wait(sleeper, 0, 0, pollMs);
          pollMs = Math.min(pollMs * 2, lastPollMs);
          continue;
        }
        open = false;
      }
    }
  };
  const ask = (message: ChannelMessage): number | undefined => {
    if (!send(message)) return undefined;
    asked += 1;
    return asked;
  };
  return {
    learnSecrets(secrets) {
      const answer = secrets.length > 0 ? ask({ secrets }) : undefined;
      if (answer !== undefined) awaitAnswers(answer);
    },
    watchGroup(pgid) {
      const answer = ask({ watchGroup: pgid });
      return () => {
        if (answer !== undefined) awaitAnswers(answer);
      };
    },
    forgetGroup: (pgid) => void send({ forgetGroup: pgid }),
    passThrough() {
      const answer = ask({ passThrough: true });
      if (answer !== undefined) awaitAnswers(answer);
    },
    exit(code) {
      // Registered now, it runs after the listeners registered before (process.exit emits in order).
      process.once("exit", (exitCode) => {
        // Node writes V8's compile cache as the process ends, which the supervisor no longer waits
        // for: written now, before the supervisor is told (a no-op when the cache is off).
        nodeModule.flushCompileCache?.();
        // Told, the supervisor SIGKILLs this process at once: sleeping until then keeps Node's own
        // teardown, which nobody waits for, off the CPU the supervisor and the host need to finish.
        if (send({ exiting: exitCode })) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, killWaitMs);
      });
      process.exit(code);
    },
  };
}

/**
 * A supervisor of another channel version (HARNESS_TOOL_SUPERVISOR_BINARY naming an older program,
 * say) would leave an answer the provider waits for unsent: the start fails in the handshake's
 * place instead (runtime/transport/start-failure.ts), once, so the guard is disarmed first.
 */
function endForChannelVersion(spoken: string | undefined): never {
  let program = `pid ${process.ppid}`;
  try {
    program = readlinkSync(`/proc/${process.ppid}/exe`);
  } catch {
    // No /proc (darwin): the pid names it.
  }
  const found =
    spoken === undefined
      ? `speaks no channel version (${channelVersionVariable} unset: a supervisor program older than this runtime)`
      : `speaks channel version ${JSON.stringify(spoken)}`;
  disarmStartFailureGuard();
  reportStartFailure(
    `its supervisor (${program}) ${found}, and this runtime needs channel version ${channelVersion}: unset HARNESS_TOOL_SUPERVISOR_BINARY, or install @harness-tool/supervisor-${process.platform}-${process.arch} at the version of the harness-tool package the provider runs on`,
  );
  process.exit(1);
}

/** Parses one line of the channel; undefined for anything else. */
export function parseChannelMessage(line: string): ChannelMessage | undefined {
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    if (Array.isArray(value.secrets))
      return { secrets: value.secrets.filter((s): s is string => typeof s === "string") };
    if (Number.isInteger(value.watchGroup)) return { watchGroup: value.watchGroup as number };
    if (Number.isInteger(value.forgetGroup)) return { forgetGroup: value.forgetGroup as number };
    if (value.passThrough === true) return { passThrough: true };
    if (Number.isInteger(value.exiting)) return { exiting: value.exiting as number };
  } catch {
    // Not a message.
  }
  return undefined;
}
