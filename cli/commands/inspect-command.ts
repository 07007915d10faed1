/**
 * `harness-tool inspect <provider> [--config f] [--port N] [--cwd dir]`: launches the provider as the
 * kernel does and serves the inspector page on 127.0.0.1 under a random token, printing its URL.
 * Opens no browser by itself. Runs until Ctrl-C (or `stop` is aborted), then kills the provider the
 * way go-plugin does.
 */
import { InspectSession, type InspectServer, startInspectServer } from "../inspector/index.js";
import { CommandDeadline, parseTimeout } from "../provider/command-deadline.js";
import { providerTarget } from "../provider/provider-target.js";
import { defineCommand } from "./command-definition.js";
import { readJsonObjectFile, workingDirectory } from "./command-options.js";
import { writeWrapped } from "../terminal/error-lines.js";
import { UsageError } from "../terminal/usage-error.js";

/** Where the command writes and what stops it. */
export interface InspectIo {
  readonly out: NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** Aborted on Ctrl-C. */
  readonly stop: AbortSignal;
  /** Called with the URL once the page is served (tests read it here). */
  readonly onReady?: (url: string) => void;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number (0 to 65535), not ${JSON.stringify(text)}`);
  return port;
}

/** inspect's `--timeout` when none is given. */
const defaultInspectTimeout = "2m";

/** The command's parsed arguments. */
export interface InspectArguments {
  readonly target: string;
  readonly config: string | undefined;
  readonly port: string | undefined;
  readonly cwd: string | undefined;
  /** `--timeout`: the deadline of the launch (GetSchema, Describe and the first Configure included) and of each call. */
  readonly timeout?: string | undefined;
}

/** Runs the command until `io.stop` is aborted; resolves to the exit code. */
export async function inspectCommand(
  values: InspectArguments,
  providerArgs: readonly string[],
  io: InspectIo,
): Promise<number> {
  const config = values.config === undefined ? undefined : readJsonObjectFile(values.config, "--config");
  const port = parsePort(values.port);
  const workingDirectoryOfCalls = workingDirectory(values.cwd);
  const provider = providerTarget(values.target, providerArgs);
  const timeoutMs = parseTimeout(values.timeout ?? defaultInspectTimeout);
  // What it says on the way is wrapped at the terminal's width, as its errors are.
  const say = (line: string) => writeWrapped(io.err, `harness-tool inspect: ${line}`);
  say(`launching ${[provider.command, ...provider.args].join(" ")}`);
  const deadline = new CommandDeadline(timeoutMs);
  // A start that ends after the deadline passed (a Configure the kill failed) is closed once it does: nobody else holds it.
  let starting: Promise<InspectSession> | undefined;
  const session = await deadline
    .run(() => {
      starting = InspectSession.start(provider, {
        ...(config ? { config } : {}),
        workingDirectory: workingDirectoryOfCalls,
        // The deadline's own kill is reported by the deadline's error, not as the provider's exit.
        onProviderChange: (line) => {
          if (!deadline.fired) say(line);
        },
        launchOptions: deadline.launchOptions(),
        callTimeoutMs: timeoutMs,
        onStage: (stage) => deadline.enter(stage),
      });
      return starting;
    })
    .catch((error: unknown) => {
      void starting?.then(
        (late) => late.close(),
        () => {},
      );
      throw error;
    });
  try {
    let server: InspectServer;
    try {
      server = await startInspectServer(session, { port });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(
        code === "EADDRINUSE"
          ? `port ${port} is in use; pick another with --port, or leave it out for a free one`
          : `cannot serve the inspector: ${(e as Error).message}`,
      );
    }
    try {
      io.out.write(
        `Inspector for ${session.snapshot().identity.name}: open\n\n  ${server.url}\n\nin a browser (it opens nothing by itself; the token in the URL is the only way in). Ctrl-C stops it.\n`,
      );
      io.onReady?.(server.url);
      if (!io.stop.aborted)
        await new Promise<void>((resolve) => io.stop.addEventListener("abort", () => resolve(), { once: true }));
    } finally {
      await server.close();
    }
  } finally {
    await session.close();
  }
  say("stopped the provider");
  return 0;
}

/** The command line of `harness-tool inspect`; Ctrl-C (or SIGTERM) stops it. */
export const inspectCommandDefinition = defineCommand({
  name: "inspect",
  summary: "serve a local web page to configure, preview and invoke a provider's tools by hand",
  description: [
    "Launches the provider as the kernel does and serves a page on 127.0.0.1 under a random token, printed here; open it in a browser (nothing opens by itself, and nothing is served without the token). The page lists the tools, builds a form from each input_schema, shows Preview and Render trees, streams Invoke live with Cancel, fires hook points (DispatchHook) when the provider advertises them, and answers kernel callbacks with canned replies. Its Restart launches the provider again (after a rebuild, or when it exited, which the page and this terminal say).",
    "<provider> is an executable, a .ts/.js entry file (run with Node, through tsx for TypeScript) or a provider folder with src/main.ts. Ctrl-C stops the page and the provider.",
  ].join("\n\n"),
  positionals: [{ name: "provider" }],
  flags: {
    config: {
      type: "string",
      value: "file.json",
      description: "a JSON object file sent as the first Configure (the page can send others)",
    },
    port: { type: "string", value: "N", description: "the port to listen on (default: a free one)" },
    cwd: {
      type: "string",
      value: "dir",
      description: "CallContext.working_directory of the calls (default: the current directory)",
    },
    timeout: {
      type: "string",
      value: "duration",
      default: defaultInspectTimeout,
      description:
        "the deadline of the launch (and first Configure) and of each call; an Invoke still running then is cancelled",
    },
  },
  providerArgs: true,
  examples: [
    "harness-tool inspect dist/provider.mjs --config dev-config.json",
    "harness-tool inspect src/main.ts --port 8123",
    "harness-tool inspect examples/exec",
  ],
  run: async ({ values, positionals, providerArgs }, streams) => {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      const [target] = positionals as [string];
      return await inspectCommand(
        { target, config: values.config, port: values.port, cwd: values.cwd, timeout: values.timeout },
        providerArgs,
        {
          ...streams,
          stop: stop.signal,
        },
      );
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
});
