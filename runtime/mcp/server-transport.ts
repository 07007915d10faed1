/**
 * The MCP server as a child of the provider, spoken to over its stdio (the MCP SDK's Transport).
 * Unlike the SDK's own stdio transport, the server runs in a process group of its own, watched as
 * ctx.spawn's children are (runtime/service/process): the group is ended when the provider exits
 * (its `exit`, then the orphan watchdog when supervision is on and the provider is SIGKILLed), and
 * the server's stderr becomes the provider's log lines, never its stdout.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { inheritedEnvironment, superviseProviderChild } from "../service/process/spawn-child.js";

/** How to start the server. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: { readonly [name: string]: string };
  readonly cwd?: string;
}

/** Signals the group `pid` leads; never throws. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** One run of the server. `exited` settles when the process is gone, with how it ended. */
export class ServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child: ChildProcess | undefined;
  readonly #buffer = new ReadBuffer();
  #exit = "";
  #forget: () => void = () => {};
  readonly #killOnExit = () => signalGroup(this.#child?.pid, "SIGKILL");

  constructor(
    readonly server: ServerCommand,
    readonly stderrLine: (line: string) => void,
  ) {}

  /** How the process ended ("" while it runs). */
  get exit(): string {
    return this.#exit;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, [...this.server.args], {
        cwd: this.server.cwd ?? process.cwd(),
        env: { ...inheritedEnvironment(process.env), ...this.server.env },
        shell: false,
        detached: true,
        windowsHide: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.#child = child;
      child.once("error", (error) => {
        this.#exit = `could not start: ${error.message}`;
        reject(new Error(`the MCP server ${JSON.stringify(this.server.command)} could not start: ${error.message}`));
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) this.#forget = superviseProviderChild(child.pid);
        process.once("exit", this.#killOnExit);
        resolve();
      });
      child.stdout?.on("data", (chunk: Buffer) => {
        this.#buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.#buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      let pending = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        const lines = (pending + chunk.toString("utf8")).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) if (line.trim() !== "") this.stderrLine(line);
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.once("exit", (code, signal) => {
        this.#exit = signal ? `signal ${signal}` : `exit code ${code}`;
      });
      child.once("close", () => {
        process.off("exit", this.#killOnExit);
        this.#forget();
        this.onclose?.();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || this.#exit !== "") {
        reject(new Error(`the MCP server is not running (${this.#exit || "not started"})`));
        return;
      }
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends the server's group: SIGTERM, SIGKILL after `graceMs`; resolves once it is gone. */
  async close(graceMs = 2000): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.stdin?.end();
    signalGroup(child.pid, "SIGTERM");
    const timer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), graceMs);
    await closed;
    clearTimeout(timer);
  }
}
