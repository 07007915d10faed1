/**
 * The kernel's side of the start-up, Invoke, memory and streams suites: bench/go (a Go module
 * requiring go-plugin v1.8.0, the kernel's pin; go.sum committed) builds two programs, the bench
 * host (bench/go/host: launches providers with go-plugin's client as the kernel does and times
 * what the kernel observes) and the Go contender (bench/go/provider: the same provider written in
 * Go on go-plugin, bindings generated from proto/ into bench/go/gen). Built with the machine's Go
 * toolchain once per content and Go version into the temp dir; without Go the suites report the
 * Go contender as skipped and cannot run (the host is Go).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GoHost } from "../test/runtime/interop/go-host.js";
import { repoRoot } from "./bench-workspace.js";

const goModule = path.join(repoRoot, "bench", "go");

/** The go-plugin version bench/go requires. */
export const benchGoPluginVersion =
  /github\.com\/hashicorp\/go-plugin (v\S+)/.exec(readFileSync(path.join(goModule, "go.mod"), "utf8"))?.[1] ?? "?";

/** The built host and Go provider, or why there are none on this machine. */
export type GoBuild = { readonly host: string; readonly provider: string } | { readonly skip: string };

function moduleFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) out.push(...moduleFiles(file));
    else if (/\.(go|mod|sum)$/.test(name)) out.push(file);
  }
  return out;
}

let built: GoBuild | undefined;

/** Builds bench/go's two programs (once per process; cached in the temp dir by content). */
export function buildBenchGo(): GoBuild {
  if (built) return built;
  const version = spawnSync("go", ["version"], { encoding: "utf8" });
  if (version.status !== 0) {
    built = {
      skip: "`go` is not installed (a Go toolchain >= 1.26 with the Go module proxy builds bench/go: the go-plugin v1.8.0 host and the Go provider)",
    };
    return built;
  }
  const hash = createHash("sha256").update(version.stdout);
  for (const file of moduleFiles(goModule)) hash.update(path.relative(goModule, file)).update(readFileSync(file));
  const dir = path.join(os.tmpdir(), `harness-tool-bench-go-${hash.digest("hex").slice(0, 16)}`);
  const host = path.join(dir, "host");
  const provider = path.join(dir, "provider");
  if (!existsSync(host) || !existsSync(provider)) {
    mkdirSync(dir, { recursive: true });
    const staging = path.join(dir, `build-${process.pid}`);
    // -mod=readonly: the committed go.sum is the whole truth; a missing entry fails the build.
    const build = spawnSync("go", ["build", "-mod=readonly", "-o", `${staging}/`, "./host", "./provider"], {
      cwd: goModule,
      encoding: "utf8",
      env: { ...process.env, CGO_ENABLED: "0" },
    });
    if (build.status !== 0) {
      built = { skip: `go build of bench/go failed: ${`${build.stdout}${build.stderr}`.trim().slice(0, 800)}` };
      return built;
    }
    renameSync(path.join(staging, "host"), host);
    renameSync(path.join(staging, "provider"), provider);
  }
  built = { host, provider };
  return built;
}

let supervisor: { readonly binary: string } | { readonly skip: string } | undefined;

/**
 * The Go supervisor candidate (supervisor-go/, standard library only) built static and stripped as
 * it would ship (`-trimpath -ldflags="-s -w"`, CGO_ENABLED=0), once per content and Go version into
 * the temp dir; or why it could not be built.
 */
export function buildSupervisorGo(): { readonly binary: string } | { readonly skip: string } {
  if (supervisor) return supervisor;
  const version = spawnSync("go", ["version"], { encoding: "utf8" });
  if (version.status !== 0) return (supervisor = { skip: "`go` is not installed (it builds supervisor-go/)" });
  const source = path.join(repoRoot, "supervisor-go");
  const hash = createHash("sha256").update(version.stdout);
  for (const file of moduleFiles(source)) hash.update(path.relative(source, file)).update(readFileSync(file));
  const dir = path.join(os.tmpdir(), `harness-tool-supervisor-go-${hash.digest("hex").slice(0, 16)}`);
  const binary = path.join(dir, "harness-tool-supervisor");
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    const staging = path.join(dir, `build-${process.pid}`);
    const build = spawnSync("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", staging, "."], {
      cwd: source,
      encoding: "utf8",
      env: { ...process.env, CGO_ENABLED: "0" },
      timeout: 300_000,
    });
    if (build.status !== 0)
      return (supervisor = {
        skip: `go build of supervisor-go failed: ${`${build.stdout}${build.stderr}`.trim().slice(0, 800)}`,
      });
    renameSync(staging, binary);
  }
  return (supervisor = { binary });
}

/** What the host reports for one launch (go-plugin's Client(), Dispense, then GetSchema). */
export interface Launched {
  /** The pid go-plugin started (the supervisor's, for a supervised harness-tool provider). */
  readonly pid: number;
  /** Spawn → go-plugin's Client() returned (the handshake line read, the connection made). */
  readonly handshakeMs: number;
  /** Spawn → the first GetSchema reply. */
  readonly schemaMs: number;
}

/** One load block: each call's latency (sorted), the wall time, failures. */
export interface LoadBlock {
  readonly latenciesMs: readonly number[];
  readonly wallMs: number;
  readonly failures: number;
  readonly firstFailure: string;
}

/** The bench host, with any number of providers live at once under their own ids. */
export class KernelHost {
  readonly #host: GoHost;

  constructor(binary: string) {
    this.#host = new GoHost(binary);
  }

  /**
   * Launches `command args` with `env` added to the kernel's environment, as the kernel does, and
   * calls GetSchema. Its Invokes carry the host's deadline, as the kernel's do, unless `noDeadline`.
   */
  async launch(
    id: string,
    command: string,
    args: readonly string[],
    env: { readonly [name: string]: string } = {},
    noDeadline = false,
  ): Promise<Launched> {
    const r = await this.#host.request({ op: "launch", id, command, args, env, dir: os.tmpdir(), noDeadline });
    return { pid: Number(r.pid), handshakeMs: Number(r.handshakeMs), schemaMs: Number(r.schemaMs) };
  }

  /** ToolService/Configure with an empty config (no request fields), as the kernel does before the first Invoke. */
  async configure(id: string): Promise<void> {
    await this.#host.request({ op: "configure", id });
  }

  /** `calls` Invokes of the encoded request, at most `concurrency` in flight; each must end in a result. */
  async load(id: string, request: Uint8Array, calls: number, concurrency: number): Promise<LoadBlock> {
    const r = await this.#host.request({
      op: "load",
      id,
      request: Buffer.from(request).toString("base64"),
      calls,
      concurrency,
    });
    return {
      latenciesMs: r.latenciesMs as number[],
      wallMs: Number(r.wallMs),
      failures: Number(r.failures),
      firstFailure: String(r.firstFailure ?? ""),
    };
  }

  /** One Invoke whose output chunks the host hashes as it reads them: bytes, time, and the last event's field number (5: result). */
  async stream(
    id: string,
    request: Uint8Array,
  ): Promise<{ bytes: number; ms: number; terminal: number; events: number }> {
    const r = await this.#host.request({ op: "stream", id, request: Buffer.from(request).toString("base64") });
    return { bytes: Number(r.bytes), ms: Number(r.ms), terminal: Number(r.terminal), events: Number(r.events) };
  }

  /** `command args` run by the host itself, its stdout read and hashed as a stream's chunks are: the bare pipe. */
  async pipe(command: string, args: readonly string[]): Promise<{ bytes: number; ms: number }> {
    const r = await this.#host.request({ op: "pipe", command, args });
    return { bytes: Number(r.bytes), ms: Number(r.ms) };
  }

  /** go-plugin's Kill(): Shutdown over the controller, up to 2 s for the exit, then SIGKILL; resolves with its duration. */
  async kill(id: string): Promise<number> {
    return Number((await this.#host.request({ op: "kill", id })).ms);
  }

  /** Closes the host (it Kills what is still running). */
  close(): Promise<void> {
    return this.#host.close();
  }
}
