// What the inspector's browser tests share: finding Debian's chromium (a skip without it, unless
// HARNESS_TOOL_REQUIRE_BROWSER=1, as .ci/run sets), starting `harness-tool inspect` in-process,
// and saving screenshots under the OS temp dir as test artifacts.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { inspectCommand } from "../../cli/commands/inspect-command.js";

/** The browser binary, or why there is none. */
export function findChromium(): { path: string } | { missing: string } {
  const candidates = [process.env["HARNESS_TOOL_CHROMIUM"], "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
    (c): c is string => !!c,
  );
  const found = candidates.find((c) => existsSync(c));
  if (found) return { path: found };
  const reason = `no chromium (looked at ${candidates.join(", ")}; \`apt-get install -y chromium\`, or set HARNESS_TOOL_CHROMIUM)`;
  if (process.env["HARNESS_TOOL_REQUIRE_BROWSER"] === "1")
    throw new Error(`the browser tests must run here (HARNESS_TOOL_REQUIRE_BROWSER=1), but there is ${reason}`);
  return { missing: reason };
}

/** Where the screenshots go. */
export const screenshotDir = path.join(tmpdir(), "harness-tool-inspect-screenshots");

/** The path for a screenshot named `name`. */
export function screenshotPath(name: string): string {
  mkdirSync(screenshotDir, { recursive: true });
  return path.join(screenshotDir, `${name}.png`);
}

/** A running inspector. */
export interface RunningInspector {
  readonly url: string;
  /** What the command printed on stdout. */
  readonly printed: () => string;
  /** What the command printed on stderr. */
  readonly errors: () => string;
  stop(): Promise<number>;
}

/** Runs `harness-tool inspect <target> [-- providerArgs]` with `config` written to a file in `dir`. */
export async function startInspector(
  target: string,
  options: { dir: string; config?: object; cwd?: string; providerArgs?: readonly string[] },
): Promise<RunningInspector> {
  let config: string | undefined;
  if (options.config) {
    config = path.join(options.dir, `config-${path.basename(target)}.json`);
    writeFileSync(config, JSON.stringify(options.config));
  }
  const out = new PassThrough();
  const err = new PassThrough();
  let printed = "";
  let errors = "";
  out.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
  err.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")));
  const stop = new AbortController();
  let ready!: (url: string) => void;
  const url = new Promise<string>((resolve) => (ready = resolve));
  const done = inspectCommand(
    { target, config, port: undefined, cwd: options.cwd ?? options.dir },
    options.providerArgs ?? [],
    {
      out,
      err,
      stop: stop.signal,
      onReady: ready,
    },
  );
  const started = await Promise.race([
    url,
    done.then(
      (code) => Promise.reject(new Error(`inspect ended with ${code} before serving:\n${errors}`)),
      (error: unknown) => Promise.reject(new Error(`inspect failed: ${(error as Error).message}\n${errors}`)),
    ),
  ]);
  return {
    url: started,
    printed: () => printed,
    errors: () => errors,
    stop: async () => {
      stop.abort();
      return done;
    },
  };
}
