/**
 * `harness-tool inspect <provider> [--config f] [--port N] [--cwd dir]`: launches the provider as the
 * kernel does and serves the inspector page on 127.0.0.1 under a random token, printing its URL.
 * Opens no browser by itself. Runs until Ctrl-C (or `stop` is aborted), then kills the provider the
 * way go-plugin does.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { JsonObject } from "@bufbuild/protobuf";
import { InspectSession } from "../inspect/inspect-session.js";
import { startInspectServer } from "../inspect/inspect-server.js";
import { providerTarget } from "../inspect/provider-target.js";
import { UsageError } from "../usage-error.js";

/** The usage line. */
export const inspectUsage = "harness-tool inspect <provider> [--config file.json] [--port N] [--cwd dir] [-- provider args]";

/** Where the command writes and what stops it. */
export interface InspectIo {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** Aborted on Ctrl-C. */
  readonly stop: AbortSignal;
  /** Called with the URL once the page is served (tests read it here). */
  readonly onReady?: (url: string) => void;
}

function readConfig(file: string): JsonObject {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read --config ${file}: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--config ${file} is not JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new UsageError(`--config ${file} must hold a JSON object`);
  return value as JsonObject;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number (0 to 65535), not ${JSON.stringify(text)}`);
  return port;
}

/** Runs the command with its own arguments (before `--`) and the provider's; resolves to the exit code. */
export async function inspectCommand(cli: readonly string[], providerArgs: readonly string[], io: InspectIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...cli],
    allowPositionals: true,
    options: { config: { type: "string" }, port: { type: "string" }, cwd: { type: "string" } },
  });
  const [target] = positionals;
  if (!target || positionals.length > 1) throw new UsageError(`usage: ${inspectUsage}`);
  const config = values.config === undefined ? undefined : readConfig(values.config);
  const port = parsePort(values.port);
  const provider = providerTarget(target, providerArgs);
  io.err.write(`harness-tool inspect: launching ${[provider.command, ...provider.args].join(" ")}\n`);
  const session = await InspectSession.start(provider, { ...(config ? { config } : {}), workingDirectory: values.cwd ?? process.cwd() });
  try {
    let server;
    try {
      server = await startInspectServer(session, { port });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(
        code === "EADDRINUSE" ? `port ${port} is in use; pick another with --port, or leave it out for a free one` : `cannot serve the inspector: ${(e as Error).message}`,
      );
    }
    try {
      io.out.write(
        `Inspector for ${session.snapshot().identity.name}: open\n\n  ${server.url}\n\nin a browser (it opens nothing by itself; the token in the URL is the only way in). Ctrl-C stops it.\n`,
      );
      io.onReady?.(server.url);
      if (!io.stop.aborted) await new Promise<void>((resolve) => io.stop.addEventListener("abort", () => resolve(), { once: true }));
    } finally {
      await server.close();
    }
  } finally {
    await session.close();
  }
  io.err.write("harness-tool inspect: stopped the provider\n");
  return 0;
}

/** The command as the CLI runs it: Ctrl-C stops it. */
export async function runInspect(cli: readonly string[], providerArgs: readonly string[], streams: { out: NodeJS.WritableStream; err: NodeJS.WritableStream }): Promise<number> {
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once("SIGINT", onSigint);
  process.once("SIGTERM", onSigint);
  try {
    return await inspectCommand(cli, providerArgs, { ...streams, stop: stop.signal });
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
  }
}
