/**
 * `harness-tool invoke <provider> <tool> --args '<json>'`: configures the provider, invokes one tool
 * and shows the stream live, and the provider's stderr as it arrives. Exit codes: 0 a result, 1 a
 * ToolError or a provider that failed the call, 2 a usage or launch problem or a refused config,
 * 130 cancelled with Ctrl-C. Every call carries a traceparent, as the kernel's do; `--trace` also
 * collects the spans the provider exports (the test host's OTLP receiver) and prints their tree.
 */
import { randomUUID } from "node:crypto";
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import {
  OutputStream,
  ToolEventSchema,
  type ToolEvent,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { formatSpanTree, ProviderCallError, type HostLogEntry, type LaunchedProvider } from "harness-tool/host";
import type { LogRequest } from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import { LogLevel } from "harness-tool/generated/pluggableharness/log/v1/log_pb.js";
import { defineCommand } from "./command-definition.js";
import { CommandDeadline, parseTimeout } from "../provider/command-deadline.js";
import { launchProvider, providerExitReport } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { readJsonObjectFile, withCtrlC, workingDirectory } from "./command-options.js";
import { configureProvider } from "./configure-provider.js";
import { progressLine } from "../terminal/progress-bar.js";
import {
  kernelLogLine,
  kernelLogShows,
  type ProviderLogShown,
  providerLogLine,
  providerLogShows,
} from "../terminal/provider-log.js";
import { categoryName } from "../terminal/wire-names.js";
import { parseJsonObject } from "../terminal/fault-wording.js";
import { writeWrapped } from "../terminal/error-lines.js";
import { UsageError } from "../terminal/usage-error.js";

/** Options of the invoke command. */
export interface InvokeOptions {
  readonly tool: string;
  readonly args: JsonObject;
  /** A JSON file holding the Configure struct. */
  readonly configFile?: string;
  /** CallContext.working_directory; default: the current directory. */
  readonly cwd: string;
  readonly json: boolean;
  /** Print the tree of the provider's spans (on `err`) once it has shut down. */
  readonly trace?: boolean;
  readonly out: NodeJS.WriteStream | NodeJS.WritableStream;
  readonly err: NodeJS.WritableStream;
  /** Which of the provider's stderr lines to show as they arrive on `err` (default: all but debug and trace). */
  readonly providerLog?: ProviderLogShown;
  /** Aborted on Ctrl-C: cancels the call as the kernel would. */
  readonly interrupt: AbortSignal;
  /** The overall deadline (launch, Configure and the call), in ms; default defaultInvokeTimeoutMs. */
  readonly timeoutMs?: number;
}

/** invoke's `--timeout` when none is given (its flag's default, 2m): the launch, Configure and a call that may take a while. */
export const defaultInvokeTimeoutMs = 120_000;

/** Parses --args; a clear message on bad JSON. */
export function parseArgsJson(text: string): JsonObject {
  return parseJsonObject(
    text,
    "--args",
    (message) => new UsageError(message),
    `--args '{"path": "README.md"}'`,
  ) as JsonObject;
}

function isTty(stream: NodeJS.WritableStream): boolean {
  return (stream as NodeJS.WriteStream).isTTY === true;
}

/** Shows one event for a person. */
function showEvent(event: ToolEvent, options: InvokeOptions, state: { progressShown: boolean }): void {
  const { out, err } = options;
  const tty = isTty(out);
  const endProgress = () => {
    if (state.progressShown && tty) out.write("\n");
    state.progressShown = false;
  };
  switch (event.event.case) {
    case "outputChunk": {
      endProgress();
      const target = event.event.value.stream === OutputStream.STDERR ? err : out;
      target.write(event.event.value.data);
      break;
    }
    case "progress": {
      const line = progressLine(event.event.value.message, event.event.value.fractionComplete);
      if (tty) out.write(`\r${line}`);
      else out.write(`${line}\n`);
      state.progressShown = true;
      break;
    }
    case "partialResult":
      endProgress();
      out.write(`partial result: ${JSON.stringify(event.event.value.payload ?? {})}\n`);
      break;
    case "exitStatus":
      endProgress();
      out.write(
        `exit status: ${event.event.value.exitCode}${event.event.value.signal ? ` (signal ${event.event.value.signal})` : ""}\n`,
      );
      break;
    case "result":
      endProgress();
      out.write(`result:\n${JSON.stringify(event.event.value.payload ?? {}, null, 2)}\n`);
      break;
    case "error": {
      endProgress();
      const e = event.event.value;
      out.write(`error [${categoryName(e.category)}${e.retryable ? ", retryable" : ""}]: ${e.message}\n`);
      if (e.details) out.write(`details:\n${JSON.stringify(e.details, null, 2)}\n`);
      break;
    }
    default:
      break;
  }
}

/** Invokes the tool and shows its stream; resolves to the exit code. */
async function invokeAndShow(
  launched: LaunchedProvider,
  options: InvokeOptions,
  shown: (entry: HostLogEntry) => boolean,
): Promise<number> {
  const call = launched.invoke({
    id: `cli-${randomUUID()}`,
    toolName: options.tool,
    arguments: options.args,
    callContext: { sessionId: `cli-session-${process.pid}`, turnId: "1", workingDirectory: options.cwd },
  });
  const onInterrupt = () => call.cancel();
  options.interrupt.addEventListener("abort", onInterrupt, { once: true });
  const state = { progressShown: false };
  let terminal: ToolEvent | undefined;
  try {
    for await (const event of call) {
      if (options.json) options.out.write(`${JSON.stringify(toJson(ToolEventSchema, event))}\n`);
      else showEvent(event, options, state);
      if (event.event.case === "result" || event.event.case === "error") terminal = event;
    }
  } catch (e) {
    if (!(e instanceof ProviderCallError)) throw e;
    const exit = await providerExitReport(launched, { shown });
    throw new Error(exit ?? `Invoke failed with gRPC status ${e.code}: ${e.details}`);
  } finally {
    options.interrupt.removeEventListener("abort", onInterrupt);
  }
  if (options.interrupt.aborted) {
    writeWrapped(
      options.err,
      `harness-tool invoke: cancelled${terminal ? "" : " (no terminal event, as the protocol requires)"}`,
    );
    return 130;
  }
  if (!terminal) throw new Error("the stream closed without a result or an error (a provider bug)");
  return terminal.event.case === "result" ? 0 : 1;
}

/**
 * Runs the command; resolves to the exit code, or throws: a UsageError (exit 2) for a usage or
 * launch problem or a refused config, another error (exit 1) when the provider fails the call.
 */
export async function invokeCommand(provider: ProviderCommand, options: InvokeOptions): Promise<number> {
  const config = options.configFile === undefined ? {} : readJsonObjectFile(options.configFile, "--config");
  const which = options.providerLog ?? "default";
  // Lines before the handshake are part of a launch error; the rest are shown as they arrive.
  let live = false;
  const show = (entry: HostLogEntry) => {
    if (live && providerLogShows(which, entry)) options.err.write(`${providerLogLine(entry)}\n`);
  };
  const shown = (entry: HostLogEntry) => live && providerLogShows(which, entry);
  const deadline = new CommandDeadline(options.timeoutMs ?? defaultInvokeTimeoutMs, { shown });
  return deadline.run(async () => {
    const launched = await launchProvider(provider, {
      ...(options.trace ? { traces: true } : {}),
      ...deadline.launchOptions(show),
      // The handler's ctx.log lines, as the kernel receives them (the provider redacted them before sending).
      kernel: { log: (request) => showKernelLog(request, which, options.err) },
    });
    live = true;
    for (const entry of launched.stderr) show(entry);
    try {
      deadline.enter("Configure");
      await configureProvider(launched, config, {
        configFile: options.configFile,
        shown,
        timeoutMs: deadline.callTimeoutMs(30_000),
      });
      deadline.enter(`the call to ${options.tool}`);
      return await invokeAndShow(launched, options, shown);
    } finally {
      deadline.enter("Shutdown");
      await launched.kill();
      if (options.trace) printTrace(launched, options.err);
    }
  });
}

/** The handler's ctx.log entry on `err`, when `which` shows its level. */
function showKernelLog(request: LogRequest, which: ProviderLogShown, err: NodeJS.WritableStream): void {
  const entry = request.entry;
  if (!entry) return;
  const level = (LogLevel[entry.level] ?? "INFO").toLowerCase();
  if (!kernelLogShows(which, level)) return;
  err.write(`${kernelLogLine({ level, logger: entry.logger, message: entry.message, fields: entry.fields ?? {} })}\n`);
}

/** The provider's spans as a tree under this command's calls, or why there are none. */
function printTrace(launched: LaunchedProvider, err: NodeJS.WritableStream): void {
  const spans = launched.spans();
  err.write(`trace ${launched.traceId}\n`);
  if (spans.length === 0) {
    // The provider says why on stderr (no SDK installed beside it, most often).
    const why = launched.stderr
      .filter((entry) => /trace export|OpenTelemetry/.test(entry.raw))
      .map((entry) => `  ${entry.raw}\n`);
    err.write(
      `  the provider exported no spans${why.length > 0 ? `:\n${why.join("")}` : " (see docs/runtime.md#tracing)\n"}`,
    );
    return;
  }
  for (const line of formatSpanTree(spans, () => "harness-tool invoke [client]")) err.write(`  ${line}\n`);
}

/** The command line of `harness-tool invoke`. */
export const invokeCommandDefinition = defineCommand({
  name: "invoke",
  summary: "configure a provider, invoke one tool and show its stream live",
  description: [
    "Starts the provider as the kernel does, sends Configure (the --config file, or {}), invokes the tool once and shows each event as it arrives: output chunks, progress, partial results, the exit status, then the result or the error. Every invoke starts a fresh provider process, so state kept in memory does not carry over from one invoke to the next.",
    "The provider's stderr (a handler's console.error among it) and the handler's ctx.log lines (which the kernel receives over its Log callback, secrets redacted by the provider) are shown on stderr as they arrive: all but debug and trace lines, all of them with --verbose, none with --quiet.",
    "--timeout bounds the whole command: the launch, Configure and the call. When it passes, the provider's process tree is killed and the command exits 1 with what hung and the provider's stderr.",
    "Ctrl-C cancels the call the way the kernel does. Exit codes: 0 a result; 1 a tool error, or the provider failed the call (it crashed, broke the stream); 2 a usage or launch problem, or a config the provider refused (pass --config); 130 cancelled.",
  ].join("\n\n"),
  positionals: [{ name: "provider" }, { name: "tool" }],
  flags: {
    args: {
      type: "string",
      value: "json",
      required: true,
      description: "the tool's arguments, a JSON object ('{}' for none)",
    },
    config: { type: "string", value: "file.json", description: "a JSON object file sent as the Configure struct" },
    cwd: {
      type: "string",
      value: "dir",
      description: "CallContext.working_directory of the call (default: the current directory)",
    },
    json: { type: "boolean", description: "print each ToolEvent as one JSON line instead" },
    quiet: { type: "boolean", description: "do not show the provider's stderr nor the handler's ctx.log lines" },
    verbose: {
      type: "boolean",
      description: "show all of the provider's stderr and ctx.log lines, debug and trace too",
    },
    timeout: {
      type: "string",
      value: "duration",
      default: "2m",
      description: "the deadline of the launch, Configure and the call together (e.g. 30s, 5m)",
    },
    trace: {
      type: "boolean",
      description:
        "print the provider's spans as a tree on stderr (the provider needs the OpenTelemetry SDK installed beside it: docs/runtime.md#tracing)",
    },
  },
  providerArgs: true,
  examples: [
    `harness-tool invoke dist/provider.mjs read_note --args '{"title": "hi"}'`,
    `harness-tool invoke dist/provider.mjs read_note --args '{}' --config dev.json`,
    `harness-tool invoke dist/provider.mjs list --args '{"dir": "/tmp"}' --json`,
  ],
  run: async ({ values, positionals, providerArgs }, { out, err }) => {
    const [target, tool] = positionals as [string, string];
    const args = parseArgsJson(values.args);
    const cwd = workingDirectory(values.cwd);
    if (values.quiet && values.verbose)
      throw new UsageError("--quiet and --verbose contradict each other: give one", { seeHelp: true });
    const timeoutMs = parseTimeout(values.timeout);
    return withCtrlC((interrupt) =>
      invokeCommand(providerTarget(target, providerArgs), {
        tool,
        args,
        ...(values.config ? { configFile: values.config } : {}),
        cwd,
        json: values.json,
        trace: values.trace,
        providerLog: values.quiet ? "none" : values.verbose ? "all" : "default",
        out,
        err,
        interrupt,
        timeoutMs,
      }),
    );
  },
});
