// Runs a command under a pseudo-terminal, through util-linux's `script`, so a test can answer
// interactive prompts as a person would: wait for a question on the screen, type the answer.
import { spawn, spawnSync } from "node:child_process";

/** A command running on a pseudo-terminal. */
export interface TerminalSession {
  /** Resolves once the screen text (escape sequences removed) matches `pattern`; rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Types `keys` (use "\r" for Enter). */
  type(keys: string): void;
  /** The screen text so far, escape sequences removed. */
  screen(): string;
  /** Resolves to the command's exit code. */
  exited: Promise<number | null>;
  kill(): void;
}

/** True when `script` (util-linux) can run a command on a pseudo-terminal here. */
export function hasScript(): boolean {
  const probe = spawnSync("script", ["-qec", "true", "/dev/null"], { stdio: "ignore" });
  return probe.status === 0;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: it matches terminal escape sequences, which start with ESC.
const escapes = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>]/g;

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Starts `command` with `args` in `cwd` on a pseudo-terminal `columns` wide. */
export function runOnTerminal(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; columns?: number },
): TerminalSession {
  const line = `stty cols ${options.columns ?? 100} rows 40; exec ${[command, ...args].map(quote).join(" ")}`;
  const child = spawn("script", ["-qefc", line, "/dev/null"], {
    cwd: options.cwd,
    env: { ...options.env, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let raw = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    raw += chunk.toString("utf8");
    for (const l of [...listeners]) l();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const screen = () => raw.replace(escapes, "");
  let ended = false;
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      ended = true;
      for (const l of [...listeners]) l();
      resolve(code);
    }),
  );
  return {
    screen,
    type: (keys) => void child.stdin.write(keys),
    exited,
    kill: () => void child.kill("SIGKILL"),
    // The timeout only keeps a broken prompt from hanging the test run; it measures nothing.
    waitFor: (pattern, timeoutMs = 120_000) =>
      new Promise<void>((resolve, reject) => {
        const fail = (why: string) => {
          clearTimeout(timer);
          listeners.delete(check);
          reject(new Error(`the terminal ${why} without showing ${pattern}; it shows:\n${screen()}`));
        };
        const check = () => {
          if (pattern.test(screen())) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve();
          } else if (ended) fail("closed");
        };
        const timer = setTimeout(() => fail(`waited ${timeoutMs} ms`), timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}
