/**
 * The real go-plugin host of the interop tests (test/runtime/interop/host/, a Go module requiring exactly
 * github.com/hashicorp/go-plugin v1.8.0, the kernel's pin), driven over JSON lines. Built with the
 * machine's Go toolchain from the module proxy (go.sum is committed), once per content and Go
 * version into the temp dir, so repeated runs reuse it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const hostModule = path.join(path.dirname(fileURLToPath(import.meta.url)), "host");
const hostFiles = ["go.mod", "go.sum", "main.go"];

/** The go-plugin version the host is built with: the one its go.mod requires. */
export const goPluginVersion =
  /github\.com\/hashicorp\/go-plugin (v\S+)/.exec(readFileSync(path.join(hostModule, "go.mod"), "utf8"))?.[1] ?? "?";

/** The built host binary, or why there is none on this machine. */
export type GoHostBuild = { binary: string } | { skip: string };

/**
 * Builds the host. Without `go` this is a skip, unless HARNESS_TOOL_REQUIRE_INTEROP=1 (set by
 * .ci/run), where it is a failure; a failing build is always a failure.
 */
export function buildGoHost(): GoHostBuild {
  const version = spawnSync("go", ["version"], { encoding: "utf8" });
  if (version.status !== 0) {
    const reason =
      "`go` is not installed (a Go toolchain >= 1.26 with access to the Go module proxy builds the go-plugin v1.8.0 host)";
    if (process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1")
      throw new Error(`the interop test must run here, but ${reason}`);
    return { skip: reason };
  }
  const hash = createHash("sha256").update(version.stdout);
  for (const file of hostFiles) hash.update(file).update(readFileSync(path.join(hostModule, file)));
  const dir = path.join(os.tmpdir(), `harness-tool-go-host-${hash.digest("hex").slice(0, 16)}`);
  const binary = path.join(dir, "host");
  if (existsSync(binary)) return { binary };

  mkdirSync(dir, { recursive: true });
  const output = path.join(dir, `host-${process.pid}`);
  // -mod=readonly: the committed go.sum is the whole truth; a missing entry fails the build.
  const build = spawnSync("go", ["build", "-mod=readonly", "-o", output, "."], {
    cwd: hostModule,
    encoding: "utf8",
    env: { ...process.env, CGO_ENABLED: "0" },
  });
  if (build.status !== 0)
    throw new Error(
      `go build of the interop host (go-plugin ${goPluginVersion}) failed:\n${build.stdout}${build.stderr}`,
    );
  renameSync(output, binary);
  return { binary };
}

/** One line of the Go host's own log (hclog JSON): go-plugin's lines and the provider's stderr. */
export interface GoLogEntry {
  readonly level: string;
  readonly message: string;
  /** `host` for go-plugin's client, `host.stdio` for its StreamStdio reader, `host.<binary>` for the provider's stderr. */
  readonly module: string;
  readonly fields: { readonly [key: string]: unknown };
}

/** Parses the host's hclog JSON output. */
export function parseGoLog(text: string): GoLogEntry[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => {
      const {
        "@level": level,
        "@message": message,
        "@module": module,
        "@timestamp": _timestamp,
        ...fields
      } = JSON.parse(line) as Record<string, unknown>;
      return { level: String(level), message: String(message), module: String(module), fields };
    });
}

/** The provider's stderr lines among the host's log entries, as go-plugin logged them. */
export function providerLogLines(entries: readonly GoLogEntry[]): GoLogEntry[] {
  return entries.filter((e) => e.module !== "host" && e.module !== "host.stdio");
}

/** Bytes as the host's requests carry them: base64. */
export function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64");
}

/** One result line of the host. */
export type GoResult = { readonly op: string; readonly error?: string } & { readonly [key: string]: unknown };

/** A running Go host process, one command at a time. */
export class GoHost {
  readonly #process: ChildProcess;
  readonly #results: GoResult[] = [];
  readonly #wakers: (() => void)[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<void>;
  /** The host's TMPDIR, removed by close(). */
  readonly tempDir: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(binary: string) {
    // The kernel builds a minimal environment for its plugins, but go-plugin v1.8.0 (SkipHostEnv
    // unset, as in the kernel) appends the host's whole environment to it: the host itself runs
    // with only the minimal one, so the provider sees what a kernel started that way gives it.
    const env: NodeJS.ProcessEnv = {};
    // HARNESS_TOOL_SUPERVISOR_BINARY: a run of the tests against another supervisor program.
    for (const name of ["PATH", "HOME", "HARNESS_TOOL_SUPERVISOR_BINARY"])
      if (process.env[name] !== undefined) env[name] = process.env[name];
    // A temp dir of its own (the provider inherits it): go-plugin's broker sockets, and the
    // provider's when no PLUGIN_UNIX_SOCKET_DIR is given, go there, and close() removes what a
    // SIGKILLed host could not.
    this.tempDir = mkdtempSync(path.join(os.tmpdir(), "ht-go-"));
    env.TMPDIR = this.tempDir;
    this.#process = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"], env });
    this.#process.stdin!.on("error", () => {}); // a SIGKILLed host's stdin: EPIPE on close()
    this.exited = new Promise((resolve) => this.#process.once("close", () => resolve()));
    createInterface({ input: this.#process.stdout! }).on("line", (line) => {
      this.#results.push(JSON.parse(line) as GoResult);
      this.#wakers.shift()?.();
    });
    createInterface({ input: this.#process.stderr! }).on("line", (line) => this.stderr.push(line));
  }

  /** The host process's pid. */
  get pid(): number {
    return this.#process.pid as number;
  }

  /** Sends one command and resolves with its result; an `error` result rejects. */
  request(command: { readonly op: string; readonly [key: string]: unknown }): Promise<GoResult> {
    const run = async () => {
      this.#process.stdin!.write(`${JSON.stringify(command)}\n`);
      while (this.#results.length === 0) {
        const exitedEarly = this.exited.then(() => {
          throw new Error(`the Go host exited during ${command.op}; its stderr:\n${this.stderr.slice(-20).join("\n")}`);
        });
        await Promise.race([new Promise<void>((wake) => this.#wakers.push(wake)), exitedEarly]);
      }
      const result = this.#results.shift() as GoResult;
      if (result.error !== undefined) throw new Error(`Go host ${command.op}: ${result.error}`);
      return result;
    };
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** The host's log so far (go-plugin's own lines and the provider's stderr). */
  async logEntries(): Promise<GoLogEntry[]> {
    return parseGoLog(String((await this.request({ op: "logs" })).logs));
  }

  /** What go-plugin's StreamStdio reader copied to SyncStdout and SyncStderr. */
  async stdio(): Promise<{ stdout: string; stderr: string }> {
    const result = await this.request({ op: "logs" });
    return { stdout: String(result.stdioStdout), stderr: String(result.stdioStderr) };
  }

  /** Dials the provider with other credentials than the host's and reports whether it refused. */
  async probe(
    credentials: "plaintext" | "tls-without-client-cert" | "tls-foreign-client-cert",
  ): Promise<{ refused: boolean; message: string }> {
    const result = await this.request({ op: "probe", credentials });
    return { refused: result.refused === true, message: String(result.message ?? "") };
  }

  /** SIGKILLs the host, as when the kernel crashes. */
  sigkill(): void {
    this.#process.kill("SIGKILL");
  }

  /** Closes stdin (the host then Kills its plugin), waits for the host to exit, removes its temp dir. */
  async close(): Promise<void> {
    this.#process.stdin!.end();
    await this.exited;
    rmSync(this.tempDir, { recursive: true, force: true });
  }
}
