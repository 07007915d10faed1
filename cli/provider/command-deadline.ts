/**
 * The overall deadline of a command that launches a provider (`--timeout`): the launch, Configure
 * and the calls together. A provider that never answers (an import that failed and left the
 * process idling before its handshake, a Configure or handler that never resolves, a serving
 * process killed under a supervisor that lives on) cannot hold the command: at the deadline the
 * provider's whole process tree is killed and the command fails (exit 1) with one line saying what
 * hung and what to do, then the tail of the provider's stderr.
 */
import type { HostLogEntry, LaunchOptions } from "harness-tool/host";
import { HeadlineError } from "../terminal/error-lines.js";
import { providerLogLine } from "../terminal/provider-log.js";
import { UsageError } from "../terminal/usage-error.js";
import { killProcessTree, processesGone } from "./process-tree.js";

/** How long the launch waits for the handshake at most, as launch() does by default. */
const handshakeBoundMs = 10_000;
/** After the kill, how long the command's own clean-up may take before the deadline's error is thrown anyway. */
const settleMs = 3000;
/** The stderr lines a deadline's error quotes at most. */
const tailLines = 10;

const units: { readonly [unit: string]: number } = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--timeout <duration>`: `30s`, `500ms`, `2m`, `1h`, `1m30s`; a bare number is seconds. */
export function parseTimeout(text: string, flag = "--timeout"): number {
  const bare = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : undefined;
  let total = bare ?? 0;
  if (bare === undefined) {
    const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
    if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
      throw new UsageError(`${flag} ${JSON.stringify(text)} is not a duration: give e.g. ${flag} 30s, 500ms or 2m`, {
        seeHelp: true,
      });
    }
    for (const [, amount, unit] of parts) total += Number(amount) * (units[unit as string] as number);
  }
  if (!(total > 0) || total > 24 * 3_600_000)
    throw new UsageError(`${flag} must be more than 0 and at most 24h, not ${text}`, { seeHelp: true });
  return Math.round(total);
}

/** `2s`, `1m30s`, `500ms`: a duration as `--timeout` takes it. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms % 1000 !== 0) return `${(ms / 1000).toFixed(1).replace(/\.0$/, "")}s`;
  const seconds = ms / 1000;
  if (seconds < 60 || seconds % 60 === 0) return seconds < 60 ? `${seconds}s` : `${seconds / 60}m`;
  return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

/** The command's deadline passed: what was running, and the provider's stderr. Exit 1. */
export class DeadlineExceeded extends HeadlineError {
  override readonly name = "DeadlineExceeded";
}

/** Options of a deadline. */
export interface DeadlineOptions {
  /** Whether a stderr line was already shown as it arrived (the error then quotes only the others). */
  readonly shown?: (entry: HostLogEntry) => boolean;
  /** The `--timeout` value to suggest, written as the command takes it; default twice this deadline as a duration. */
  readonly longer?: string;
}

/** The deadline of one command. Create it when the command starts; it runs from then. */
export class CommandDeadline {
  readonly ms: number;
  readonly #started = performance.now();
  readonly #shown: (entry: HostLogEntry) => boolean;
  readonly #stderr: HostLogEntry[] = [];
  readonly #pids: number[] = [];
  readonly #longer: string | undefined;
  #stage = "the launch";
  #fired = false;

  constructor(ms: number, options: DeadlineOptions = {}) {
    this.ms = ms;
    this.#shown = options.shown ?? (() => false);
    this.#longer = options.longer;
  }

  /** What the command is doing now ("Configure", "GetSchema", "the call to read_note"), named if the deadline passes during it. */
  enter(stage: string): void {
    this.#stage = stage;
  }

  /** Whether a run() reached the deadline and killed the provider (its exit is then this deadline's doing). */
  get fired(): boolean {
    return this.#fired;
  }

  /** Milliseconds left (0 once passed). */
  remaining(): number {
    return Math.max(0, this.ms - (performance.now() - this.#started));
  }

  /** A call's own gRPC deadline: `usual`, or what is left of this one (and a second more, so this deadline speaks first) when sooner. */
  callTimeoutMs(usual: number): number {
    return Math.max(1, Math.min(usual, Math.ceil(this.remaining()) + 1000));
  }

  /**
   * Options for launch(): the spawned pid and the stderr lines reach the deadline; the handshake is
   * bounded by the deadline (with a backstop after it), and by launch()'s own 10 s when that is sooner.
   */
  launchOptions(
    onStderrLine?: (entry: HostLogEntry) => void,
  ): Pick<LaunchOptions, "onSpawn" | "onStderrLine" | "handshakeTimeoutMs"> {
    return {
      onSpawn: (pid) => this.#pids.push(pid),
      onStderrLine: (entry) => {
        this.#stderr.push(entry);
        onStderrLine?.(entry);
      },
      handshakeTimeoutMs: Math.min(handshakeBoundMs, Math.ceil(this.remaining()) + 1000),
    };
  }

  /**
   * Runs `work` within the deadline. When it passes first: every provider process this deadline
   * saw spawned is killed with its descendants, `work` gets a moment to clean up, and the result
   * is a DeadlineExceeded.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    const running = work();
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        this.#fired = true;
        // Said now, while the stage is the one that hung (the clean-up below moves it on).
        const error = this.exceeded();
        const killed = [...this.#pids].flatMap((pid) => killProcessTree(pid));
        let settle: NodeJS.Timeout | undefined;
        void Promise.all([
          Promise.race([running.then(noop, noop), new Promise((resolve) => (settle = setTimeout(resolve, settleMs)))]),
          // The command ends with the tree gone, not merely signalled.
          processesGone(killed, settleMs),
        ]).then(() => {
          clearTimeout(settle);
          reject(error);
        });
      }, this.remaining());
    });
    expiry.catch(noop);
    try {
      const value = await Promise.race([running, expiry]);
      // Work that turns failures into results (check's rules) may finish after the kill: the deadline still decides.
      if (expired) return await expiry;
      return value;
    } catch (e) {
      if (!expired) throw e;
      return await expiry;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The error for a deadline that passed in the current stage. */
  exceeded(): DeadlineExceeded {
    const within = durationText(this.ms);
    const longer = this.#longer ?? durationText(this.ms * 2);
    const headlines = [
      `${this.#stage} did not end within ${within}: killed the provider; fix what its stderr shows, or give a longer --timeout`,
      `${this.#stage} did not end within ${within}: killed the provider; see its stderr, or --timeout ${longer}`,
      `${this.#stage}: no answer in ${within}; provider killed; see stderr, or --timeout ${longer}`,
      `${this.#stage}: timed out (${within}); see stderr, or --timeout ${longer}`,
      `${this.#stage} timed out (${within}); try --timeout ${longer}`,
    ];
    const unseen = this.#stderr.filter((entry) => !this.#shown(entry));
    if (unseen.length === 0)
      return new DeadlineExceeded(
        headlines,
        this.#stderr.length > 0 ? "its stderr is above" : "it wrote nothing to stderr",
      );
    const lead =
      unseen.length < this.#stderr.length
        ? "the last lines of its stderr not shown above:"
        : "the last lines of its stderr:";
    return new DeadlineExceeded(
      headlines,
      [lead, ...unseen.slice(-tailLines).map((entry) => `  ${providerLogLine(entry)}`)].join("\n"),
    );
  }
}

function noop(): void {}
