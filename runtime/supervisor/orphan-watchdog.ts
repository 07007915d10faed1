/**
 * The orphan watchdog: a `/bin/sh` loop (about 1 MB, a few ms to start) that outlives the process
 * that started it by exactly as long as it takes to clean up after it. That process tells it, one
 * line each on the watchdog's stdin, which processes and process groups to end if it dies ("a
 * <pid>", "a -<pgid>", "d ..." once they ended by themselves); when stdin reaches EOF (its writer
 * exited, SIGKILL included: no handler of the writer has to run) the watchdog sends SIGTERM to
 * those still listed, waits `killGraceSeconds`, sends SIGKILL and exits.
 *
 * Why (docs/runtime.md#the-supervisor): go-plugin's Kill SIGKILLs the launched process after its
 * grace period; nothing in that process runs after it, so whatever it started must be ended from
 * outside it.
 */
import { spawn, type ChildProcess } from "node:child_process";

/** Between the watchdog's SIGTERM and SIGKILL (a whole second: POSIX `sleep` takes integers). */
const killGraceSeconds = 1;

/**
 * The loop: a list of kill targets kept as " a b c ", ignoring SIGINT and SIGHUP (a Ctrl-C in the
 * host's terminal reaches the whole process group; the host shuts the provider down itself).
 */
const script = `trap '' INT HUP
live=" "
while IFS= read -r line; do
  id=\${line#? }
  case $line in
    "a "*) live="$live$id " ;;
    "d "*) case $live in *" $id "*) live="\${live%%" $id "*} \${live#*" $id "}" ;; esac ;;
  esac
done
[ "$live" = " " ] && exit 0
for id in $live; do kill -s TERM -- "$id" 2>/dev/null; done
sleep ${killGraceSeconds}
for id in $live; do kill -s KILL -- "$id" 2>/dev/null; done
exit 0`;

/** A running watchdog: what to end if the process that started it dies. */
export class OrphanWatchdog {
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  /** Starts the watchdog; never throws (without /bin/sh there is none, and nothing is watched). */
  static start(): OrphanWatchdog | undefined {
    try {
      const child = spawn("/bin/sh", ["-c", script], { stdio: ["pipe", "ignore", "ignore"], windowsHide: true });
      child.on("error", () => {});
      child.stdin?.on("error", () => {});
      // Neither its pipe nor its exit may keep the event loop alive.
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      return new OrphanWatchdog(child);
    } catch {
      return undefined;
    }
  }

  /** The watchdog's pid (not a child to warn about). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Ends `pid` if the writer dies. */
  watchProcess(pid: number): void {
    this.#send(`a ${pid}`);
  }

  /** Ends the process group `pgid` (the group of a child started detached) if the writer dies. */
  watchGroup(pgid: number): void {
    this.#send(`a -${pgid}`);
  }

  /** `pid` ended by itself: never signal it (its number may be reused). */
  forgetProcess(pid: number): void {
    this.#send(`d ${pid}`);
  }

  /** The group `pgid` ended by itself. */
  forgetGroup(pgid: number): void {
    this.#send(`d -${pgid}`);
  }

  #send(line: string): void {
    try {
      this.#child.stdin?.write(`${line}\n`);
    } catch {
      // The watchdog is gone; nothing more can be done from here.
    }
  }
}
