// Runs the buf CLI that npm installed. npm 11 skips @bufbuild/buf's postinstall, which leaves
// node_modules/.bin/buf as a Node wrapper around the native binary; calling the native binary
// directly when it is there saves a Node start-up per call.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (the folder holding package.json). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const nativeBuf = path.join(repoRoot, "node_modules/@bufbuild/buf-linux-x64/bin/buf");
const wrapperBuf = path.join(repoRoot, "node_modules/.bin/buf");

/** The buf executable to call. */
export function bufExecutable(): string {
  if (process.platform === "linux" && process.arch === "x64" && existsSync(nativeBuf)) return nativeBuf;
  return wrapperBuf;
}

/** What one buf invocation printed and how it exited. */
export interface BufRun {
  status: number;
  stdout: Buffer;
  stderr: string;
}

/** How long one buf run may take: a hung plugin fails its test instead of stalling the suite. */
const bufDeadlineMs = 300_000;

/**
 * Runs `buf <args>` in `cwd` (default: the repository root) with node_modules/.bin first on PATH,
 * so `local:` plugins such as protoc-gen-es resolve to the installed ones.
 */
export function runBuf(args: readonly string[], cwd: string = repoRoot): BufRun {
  const binDir = path.join(repoRoot, "node_modules/.bin");
  const result = spawnSync(bufExecutable(), args, {
    cwd,
    env: { ...process.env, PATH: `${binDir}${path.delimiter}${process.env["PATH"] ?? ""}` },
    maxBuffer: 256 * 1024 * 1024,
    timeout: bufDeadlineMs,
    killSignal: "SIGKILL",
  });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT")
    throw new Error(
      `buf ${args.join(" ")} did not finish within ${bufDeadlineMs / 1000} s (a plugin that wrote its answer and hung in Node's exit: nodejs/node#54918)`,
    );
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr.toString("utf8") };
}

/**
 * Builds the buf module or directory `input` into a FileDescriptorSet (binary, with imports and
 * source info). Throws with buf's own diagnostics when the build fails.
 */
export function buildDescriptorSet(input: string, cwd: string = repoRoot): Uint8Array {
  const run = runBuf(["build", input, "--as-file-descriptor-set", "-o", "-#format=binpb"], cwd);
  if (run.status !== 0) throw new Error(`buf build ${input} failed:\n${run.stderr}`);
  return new Uint8Array(run.stdout);
}
