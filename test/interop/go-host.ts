/**
 * The real go-plugin host of the interop tests (test/interop/host/main.go), built in GOPATH mode
 * from Debian's packages and driven over JSON lines. Built once per content and Go version into
 * the temp dir, so repeated runs reuse it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const hostSource = path.join(path.dirname(fileURLToPath(import.meta.url)), "host", "main.go");
const debianGoPlugin = "/usr/share/gocode/src/github.com/hashicorp/go-plugin";

/** The built host binary, or why there is none on this machine. */
export type GoHostBuild = { binary: string } | { skip: string };

/**
 * Builds the host. Without `go` or Debian's go-plugin source this is a skip, unless
 * HARNESS_TOOL_REQUIRE_INTEROP=1 (set by .ci/run), where it is a failure.
 */
export function buildGoHost(): GoHostBuild {
  const version = spawnSync("go", ["version"], { encoding: "utf8" });
  const missing =
    version.status !== 0
      ? "`go` is not installed"
      : !existsSync(debianGoPlugin)
        ? `Debian's go-plugin source is not at ${debianGoPlugin}`
        : undefined;
  if (missing) {
    const reason = `${missing}: apt-get install golang-go golang-github-hashicorp-go-plugin-dev golang-google-grpc-dev golang-google-protobuf-dev (as .ci/run does)`;
    if (process.env.HARNESS_TOOL_REQUIRE_INTEROP === "1") throw new Error(`the interop test must run here, but ${reason}`);
    return { skip: reason };
  }
  const source = readFileSync(hostSource);
  const key = createHash("sha256").update(source).update(version.stdout).digest("hex").slice(0, 16);
  const dir = path.join(os.tmpdir(), `harness-tool-go-host-${key}`);
  const binary = path.join(dir, "host");
  if (existsSync(binary)) return { binary };

  // GOPATH mode needs the package under <gopath>/src/<import path>/.
  const gopath = mkdtempSync(path.join(os.tmpdir(), "harness-tool-gopath-"));
  try {
    const pkg = path.join(gopath, "src", "harness-tool-interop-host");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, "main.go"), source);
    const output = path.join(gopath, "host");
    const build = spawnSync("go", ["build", "-o", output, "."], {
      cwd: pkg,
      encoding: "utf8",
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME ?? gopath,
        GO111MODULE: "off",
        GOPATH: `${gopath}:/usr/share/gocode`,
        GOCACHE: process.env.GOCACHE ?? path.join(os.tmpdir(), "harness-tool-go-cache"),
        GOFLAGS: "",
      },
    });
    if (build.status !== 0) throw new Error(`go build of the interop host failed:\n${build.stdout}${build.stderr}`);
    mkdirSync(dir, { recursive: true });
    renameSync(output, binary);
    return { binary };
  } finally {
    rmSync(gopath, { recursive: true, force: true });
  }
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
  #queue: Promise<unknown> = Promise.resolve();

  constructor(binary: string) {
    // The kernel gives plugins a minimal environment; go-plugin 1.0.1 passes its host's whole
    // environment on, so the host itself runs with only that.
    const env: NodeJS.ProcessEnv = {};
    for (const name of ["PATH", "HOME", "TMPDIR"]) if (process.env[name] !== undefined) env[name] = process.env[name];
    this.#process = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"], env });
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

  /** SIGKILLs the host, as when the kernel crashes. */
  sigkill(): void {
    this.#process.kill("SIGKILL");
  }

  /** Closes stdin (the host then Kills its plugin) and waits for the host to exit. */
  async close(): Promise<void> {
    this.#process.stdin!.end();
    await this.exited;
  }
}
