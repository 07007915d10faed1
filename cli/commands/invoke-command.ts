/**
 * `harness-tool invoke <provider> <tool> --args '<json>'`: configures the provider, invokes one tool
 * and shows the stream live. Exit codes: 0 a result, 1 a ToolError, 2 a usage or launch problem,
 * 130 cancelled with Ctrl-C. Every call carries a traceparent, as the kernel's do; `--trace` also
 * collects the spans the provider exports (the test host's OTLP receiver) and prints their tree.
 */
import { randomUUID } from "node:crypto";
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { OutputStream, ToolEventSchema, type ToolEvent } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { formatSpanTree, ProviderCallError, type LaunchedProvider } from "harness-tool/testing";
import { defineCommand } from "./command-definition.js";
import { launchProvider, providerExitReport } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { readJsonObjectFile, withCtrlC, workingDirectory } from "./command-options.js";
import { configureProvider } from "./configure-provider.js";
import { progressLine } from "../terminal/progress-bar.js";
import { categoryName } from "../terminal/wire-names.js";
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
  /** Aborted on Ctrl-C: cancels the call as the kernel would. */
  readonly interrupt: AbortSignal;
}

/** Parses --args; a clear message on bad JSON. */
export function parseArgsJson(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--args is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError('--args must be a JSON object, e.g. --args \'{"path": "README.md"}\'');
  return value as JsonObject;
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
      out.write(`exit status: ${event.event.value.exitCode}${event.event.value.signal ? ` (signal ${event.event.value.signal})` : ""}\n`);
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

/** Runs the command; resolves to the exit code. */
export async function invokeCommand(provider: ProviderCommand, options: InvokeOptions): Promise<number> {
  const config = options.configFile === undefined ? {} : readJsonObjectFile(options.configFile, "--config");
  const launched = await launchProvider(provider, options.trace ? { traces: true } : {});
  try {
    if (!(await configureProvider(launched, config, options.err))) return 1;
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
      if (e instanceof ProviderCallError) {
        const exit = await providerExitReport(launched);
        options.err.write(exit ? `Invoke failed: ${exit}\n` : `Invoke failed with gRPC status ${e.code}: ${e.details}\n`);
        return 1;
      }
      throw e;
    } finally {
      options.interrupt.removeEventListener("abort", onInterrupt);
    }
    if (options.interrupt.aborted) {
      options.err.write(`cancelled${terminal ? "" : " (no terminal event, as the protocol requires)"}\n`);
      return 130;
    }
    if (!terminal) {
      options.err.write("the stream closed without a result or an error (a provider bug)\n");
      return 1;
    }
    return terminal.event.case === "result" ? 0 : 1;
  } finally {
    await launched.kill();
    if (options.trace) printTrace(launched, options.err);
  }
}

/** The provider's spans as a tree under this command's calls, or why there are none. */
function printTrace(launched: LaunchedProvider, err: NodeJS.WritableStream): void {
  const spans = launched.spans();
  err.write(`trace ${launched.traceId}\n`);
  if (spans.length === 0) {
    // The provider says why on stderr (no SDK installed beside it, most often).
    const why = launched.stderr.filter((entry) => /trace export|OpenTelemetry/.test(entry.raw)).map((entry) => `  ${entry.raw}\n`);
    err.write(`  the provider exported no spans${why.length > 0 ? `:\n${why.join("")}` : " (see docs/runtime.md#tracing)\n"}`);
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
    "Ctrl-C cancels the call the way the kernel does. Exit codes: 0 a result, 1 a tool error, 2 a usage or launch problem, 130 cancelled.",
  ].join("\n\n"),
  positionals: [{ name: "provider" }, { name: "tool" }],
  flags: {
    args: { type: "string", value: "json", required: true, description: "the tool's arguments as a JSON object; '{}' for a tool without arguments" },
    config: { type: "string", value: "file.json", description: "a JSON object file sent as the Configure struct" },
    cwd: { type: "string", value: "dir", description: "CallContext.working_directory of the call (default: the current directory)" },
    json: { type: "boolean", description: "print each ToolEvent as one JSON line instead" },
    trace: {
      type: "boolean",
      description: "print the provider's spans as a tree on stderr (the provider needs the OpenTelemetry SDK installed beside it: docs/runtime.md#tracing)",
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
    return withCtrlC((interrupt) =>
      invokeCommand(providerTarget(target, providerArgs), {
        tool,
        args,
        ...(values.config ? { configFile: values.config } : {}),
        cwd,
        json: values.json,
        trace: values.trace,
        out,
        err,
        interrupt,
      }),
    );
  },
});
