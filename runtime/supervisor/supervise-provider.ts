/**
 * The supervisor: the process the kernel launched, when serve() finds it is not yet supervised. It
 * owns fds 1 and 2 (the host's pipes) and starts the provider again (same Node, same flags, same
 * entry, same environment plus the marker and the channel's version) with stdout and stderr as
 * pipes it reads, so every byte the provider process and whatever inherits its stdio write passes
 * one filter, below the JavaScript layer: `fs.writeSync(2, ...)`, `process._rawDebug`, Node's own
 * fatal reports, a child started with stderr inherited.
 *
 * - stdout: the first line (the go-plugin handshake, or a start failure in its place) is forwarded
 *   verbatim: no secret exists before Configure. Nothing else is ever written to fd 1; later
 *   stdout bytes become info log lines on stderr (`"stream":"stdout"`), redacted.
 * - stderr: redacted with a hold-back of a possible secret's beginning (secret-stream-filter.ts).
 * - fd 3 (supervisor-channel.ts): the secrets, and the process groups of the tools' children.
 * - Orphans: the watchdog (orphan-watchdog.ts) ends the provider and those groups when this process
 *   dies, SIGKILL included; when the provider ends, this process exits with its status: at once
 *   when the provider said over fd 3 it is exiting (its teardown is SIGKILLed, not waited for),
 *   else once its pipes drained.
 * - Signals: SIGTERM and SIGHUP are passed on; SIGINT is ignored, as go-plugin's plugins do.
 * - Pass-through: a provider that calls `serve(p, { supervise: false })` under a supervisor started
 *   before its code loaded (supervise-before-loading.ts) says so over fd 3; from then on its stdout
 *   and stderr reach fds 1 and 2 as they are, as they would without a supervisor.
 *
 * - The supervisor program (supervisor-go/, a static Go program): this process replaces itself with
 *   it (`process.execve`, same pid), and that program supervises the same command. Which program:
 *   HARNESS_TOOL_SUPERVISOR_BINARY's path when set; else the one the running platform's package
 *   (`@harness-tool/supervisor-<os>-<cpu>`, an optional dependency) installed; else, or with the
 *   variable set to `node`, or on a Node without `process.execve`, this Node supervisor runs.
 *
 * docs/runtime.md#the-supervisor.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, statSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OrphanWatchdog } from "./orphan-watchdog.js";
import { SecretSet, SecretStreamFilter } from "./secret-stream-filter.js";
import {
  channelVersion,
  channelVersionVariable,
  parseChannelMessage,
  supervisedVariable,
} from "./supervisor-channel.js";
import { startFailurePrefix } from "../transport/start-failure.js";

/** Names a supervisor program that takes this process's place: `<program> <node> <args...>`. */
export const supervisorBinaryVariable = "HARNESS_TOOL_SUPERVISOR_BINARY";
/** The variable's value that keeps this Node supervisor. */
export const nodeSupervisorValue = "node";

/** The platforms (`<process.platform>-<process.arch>`) a supervisor package is published for. */
const packagedPlatforms: ReadonlySet<string> = new Set(["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64"]);

/** The file name a bundle gives its copy of the program, beside its executable (`harness-tool bundle`). */
export function bundledSupervisorName(platform: string): string {
  return `harness-tool-supervisor-${platform}`;
}

/** `file` when it is an executable regular file. */
function executableFile(file: string): string | undefined {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The supervisor program for the running platform, seen from `from` (this module, or the executable
 * of a bundle that inlines it): the bundle's copy beside it, else the one the platform's package
 * installed (resolved from `from`); undefined when neither (another platform, Windows,
 * `--omit=optional`) or no executable binary.
 */
export function packagedSupervisor(from: string | URL | undefined): string | undefined {
  const platform = `${process.platform}-${process.arch}`;
  if (from === undefined || !packagedPlatforms.has(platform)) return undefined;
  try {
    const beside = executableFile(fileURLToPath(new URL(bundledSupervisorName(platform), from)));
    if (beside !== undefined) return beside;
    const manifest = createRequire(from).resolve(`@harness-tool/supervisor-${platform}/package.json`);
    return executableFile(path.join(path.dirname(manifest), "bin", "harness-tool-supervisor"));
  } catch {
    return undefined;
  }
}

/**
 * Replaces this process with the supervisor program: the one HARNESS_TOOL_SUPERVISOR_BINARY names,
 * else `program` (the one a release's executable carries), else the installed platform package's;
 * returns when the Node supervisor is to run.
 */
function execSupervisorBinary(program: string | undefined): void {
  const fromEnv = process.env[supervisorBinaryVariable];
  if (fromEnv === nodeSupervisorValue) return;
  const named = fromEnv || program;
  if (!named) {
    const packaged = process.execve === undefined ? undefined : packagedSupervisor(import.meta.url);
    if (packaged !== undefined) execSupervisor(packaged);
    return;
  }
  // A failing execve aborts Node with no message of ours: what can be checked is checked first.
  let problem: string | undefined;
  try {
    accessSync(named, constants.X_OK);
    if (!statSync(named).isFile()) problem = "not a file";
  } catch (error) {
    problem = (error as Error).message;
  }
  if (process.execve === undefined) problem = `Node ${process.version} has no process.execve`;
  else if (problem === undefined) execSupervisor(named);
  writeAll(
    1,
    Buffer.from(
      `harness-tool: the provider cannot start: ${fromEnv ? `${supervisorBinaryVariable}=${named}` : `the supervisor program ${named}`} cannot run: ${problem} (name an executable, or ${nodeSupervisorValue} for the Node supervisor)\n`,
    ),
  );
  process.exit(1);
}

/** `process.execve` of `<program> <node> <node flags> <entry> <args...>`, without the variable. */
function execSupervisor(program: string): void {
  const { [supervisorBinaryVariable]: _named, ...env } = process.env;
  process.execve?.(program, [program, process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
}

/** How often the parent pid is checked: the host gone without closing anything. */
const parentPollMs = 500;
/** After the provider exited, how long its pipes may still take to drain (a child may hold them). */
const drainMs = 200;
/** How long a start failure's line waits for the provider to end. */
const firstLineHoldMs = 500;

/** Writes all of `data` to `fd`, waiting out a full non-blocking pipe; drops it when the reader is gone. */
function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += writeSync(fd, data, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

/** A go-plugin log line (hclog's JSON keys; six fractional digits, as go-plugin parses them). */
function stdoutLogLine(message: string): string {
  const timestamp = new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
  return `${JSON.stringify({ stream: "stdout", "@level": "info", "@message": message, "@timestamp": timestamp })}\n`;
}

/**
 * Runs this process as the supervisor of a second copy of itself; never resolves (the process
 * exits with the provider's status). `supervisorProgram` names a supervisor program to exec in its
 * place (a release's executable passes the one it carries); HARNESS_TOOL_SUPERVISOR_BINARY wins.
 */
export function superviseProvider(supervisorProgram?: string): Promise<never> {
  execSupervisorBinary(supervisorProgram);
  const secrets = new SecretSet();
  const stderrFilter = new SecretStreamFilter(secrets);
  const output: OutputMode = { passThrough: false };
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: {
      ...process.env,
      [supervisedVariable]: String(process.pid),
      [channelVersionVariable]: String(channelVersion),
    },
    stdio: ["inherit", "pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  const watchdog = OrphanWatchdog.start();
  if (child.pid !== undefined) watchdog?.watchProcess(child.pid);

  child.once("error", (error) => {
    writeAll(
      1,
      Buffer.from(`harness-tool: the provider cannot start: its supervisor could not start it: ${error.message}\n`),
    );
    process.exit(1);
  });

  const stdout = relayStdout(child, new SecretStreamFilter(secrets), output);
  child.stderr?.on("data", (chunk: Buffer) => writeAll(2, output.passThrough ? chunk : stderrFilter.push(chunk)));
  let finished = false;
  const finish = (code: number, signal: NodeJS.Signals | null) => {
    if (finished) return;
    finished = true;
    stdout.flushHandshake();
    writeAll(2, stderrFilter.flush());
    stdout.releaseFirstLine();
    stdout.flushRest();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code);
  };
  relayChannel(child, secrets, watchdog, output, (code) => {
    // The provider's last `exit` listener ran; what it wrote before is in the pipes and read in
    // this turn of the loop. Only the teardown is left (10-30 ms for a Node heap): the host need
    // not wait for it, and the provider can no longer run any code of its own.
    setImmediate(() => {
      child.kill("SIGKILL");
      if (child.pid !== undefined) watchdog?.forgetProcess(child.pid);
      finish(code, null);
    });
  });
  forwardSignals(child);

  child.once("exit", (code, signal) => {
    if (child.pid !== undefined) watchdog?.forgetProcess(child.pid);
    afterDrain(child, () => finish(code ?? 1, signal));
  });
  return new Promise<never>(() => {});
}

/** How the provider's output is relayed: filtered (the default) or passed through as it is. */
interface OutputMode {
  passThrough: boolean;
}

/** What is left of the provider's stdout when it has exited. */
interface StdoutRelay {
  /** Writes a handshake line that never ended to fd 1. */
  flushHandshake(): void;
  /** Writes a held first line (a start failure in the handshake's place) to fd 1, after stderr's rest. */
  releaseFirstLine(): void;
  /** Writes the filter's held-back bytes and an unfinished line as a last log line. */
  flushRest(): void;
}

/**
 * stdout: the handshake line verbatim to fd 1, then every line a log line on stderr, redacted (in
 * pass-through, every byte to fd 1 as it is).
 */
function relayStdout(child: ChildProcess, stdoutFilter: SecretStreamFilter, output: OutputMode): StdoutRelay {
  let handshake: Buffer | undefined = Buffer.alloc(0);
  // Bytes, not text, until a line is whole: a chunk may end inside a UTF-8 character.
  let stdoutLine = Buffer.alloc(0);
  const stdoutRest = (data: Buffer): void => {
    if (output.passThrough) {
      releaseFirstLine();
      writeAll(1, stdoutLine.length === 0 ? data : Buffer.concat([stdoutLine, data]));
      stdoutLine = Buffer.alloc(0);
      return;
    }
    let pending = stdoutLine.length === 0 ? data : Buffer.concat([stdoutLine, data]);
    for (let end = pending.indexOf(0x0a); end !== -1; end = pending.indexOf(0x0a)) {
      writeAll(2, Buffer.from(stdoutLogLine(pending.subarray(0, end).toString("utf8"))));
      pending = pending.subarray(end + 1);
    }
    stdoutLine = Buffer.from(pending);
  };
  // A start failure's line in the handshake's place (runtime/transport/start-failure.ts), on which
  // the host gives up and kills this process: what the provider wrote on stderr before it (the
  // failure's log line, with its stack) arrives on another pipe, maybe in a later turn of the
  // loop, so the line waits until the provider ended (finish), firstLineHoldMs, or pass-through.
  let heldFirst: Buffer | undefined;
  const releaseFirstLine = (): void => {
    if (heldFirst !== undefined) writeAll(1, heldFirst);
    heldFirst = undefined;
  };
  const writeFirstLine = (line: Buffer): void => {
    if (!line.toString("latin1").startsWith(startFailurePrefix)) return writeAll(1, line);
    heldFirst = Buffer.from(line);
    setTimeout(releaseFirstLine, firstLineHoldMs).unref();
  };
  child.stdout?.on("data", (chunk: Buffer) => {
    if (handshake === undefined) return stdoutRest(output.passThrough ? chunk : stdoutFilter.push(chunk));
    handshake = Buffer.concat([handshake, chunk]);
    const end = handshake.indexOf(0x0a);
    if (end === -1) return;
    writeFirstLine(handshake.subarray(0, end + 1));
    const rest = handshake.subarray(end + 1);
    handshake = undefined;
    if (rest.length > 0) stdoutRest(output.passThrough ? rest : stdoutFilter.push(rest));
  });
  return {
    releaseFirstLine,
    flushHandshake: () => {
      if (handshake !== undefined && handshake.length > 0) writeAll(1, handshake);
    },
    flushRest: () => {
      if (output.passThrough) {
        if (stdoutLine.length > 0) writeAll(1, stdoutLine);
        return;
      }
      const rest = stdoutFilter.flush();
      if (rest.length > 0 || stdoutLine.length > 0) stdoutRest(Buffer.concat([rest, Buffer.from("\n")]));
    },
  };
}

/** fd 3: secrets (answered once the filters have them), the tools' process groups (answered once the watchdog has them), pass-through (answered), the exit code. */
function relayChannel(
  child: ChildProcess,
  secrets: SecretSet,
  watchdog: OrphanWatchdog | undefined,
  output: OutputMode,
  exiting: (code: number) => void,
): void {
  const channel = child.stdio[3] as Socket | null;
  let channelLine = "";
  channel?.on("error", () => {});
  channel?.on("data", (chunk: Buffer) => {
    const lines = (channelLine + chunk.toString("utf8")).split("\n");
    channelLine = lines.pop() ?? "";
    for (const line of lines) {
      const message = parseChannelMessage(line);
      if (message === undefined) continue;
      if ("secrets" in message) {
        secrets.learn(message.secrets);
        channel.write("\n");
      } else if ("passThrough" in message) {
        output.passThrough = true;
        channel.write("\n");
      } else if ("exiting" in message) exiting(message.exiting);
      else if ("watchGroup" in message) {
        watchdog?.watchGroup(message.watchGroup);
        channel.write("\n");
      } else watchdog?.forgetGroup(message.forgetGroup);
    }
  });
}

/** SIGTERM and SIGHUP passed on, SIGINT ignored; the host gone (a new parent) is a SIGTERM. */
function forwardSignals(child: ChildProcess): void {
  const forward = (signal: NodeJS.Signals) => () => {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  };
  process.on("SIGTERM", forward("SIGTERM"));
  process.on("SIGHUP", forward("SIGHUP"));
  process.on("SIGINT", () => {});
  const parentPid = process.ppid;
  const parentWatch = setInterval(() => {
    if (process.ppid !== parentPid) forward("SIGTERM")();
  }, parentPollMs);
  parentWatch.unref();
}

/** Runs `finish` once, when the provider's stdout and stderr have closed or after drainMs. */
function afterDrain(child: ChildProcess, finish: () => void): void {
  let finished = false;
  const finishOnce = () => {
    if (finished) return;
    finished = true;
    finish();
  };
  let pending = 2;
  const drained = () => {
    pending -= 1;
    if (pending === 0) finishOnce();
  };
  setTimeout(finishOnce, drainMs);
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream || stream.readableEnded || stream.destroyed) drained();
    else stream.once("close", drained);
  }
}
