/**
 * `harness-tool mcp serve <provider>`: a tool provider, launched as the kernel launches it, served
 * as an MCP server over stdio (cli/mcp/serve/). Stdout is MCP's alone; the provider's stderr and
 * this command's own lines go to stderr.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { HostLogEntry } from "harness-tool/host";
import { defineCommand } from "./command-definition.js";
import { readJsonObjectFile, workingDirectory } from "./command-options.js";
import { configureProvider } from "./configure-provider.js";
import { CommandDeadline, parseTimeout } from "../provider/command-deadline.js";
import { launchProvider } from "../provider/launch-provider.js";
import { type ProviderCommand, providerTarget } from "../provider/provider-target.js";
import { providerLogLine, providerLogShows } from "../terminal/provider-log.js";
import { UsageError } from "../terminal/usage-error.js";

/** Options of `mcp serve`. */
export interface McpServeOptions {
  readonly configFile?: string;
  readonly confirmResources: boolean;
  readonly cwd: string;
  /** The deadline of the launch, GetSchema, Describe and Configure together. */
  readonly startTimeoutMs: number;
  /** Every call's deadline (default: the tool's default_timeout, else 10 minutes). */
  readonly callTimeoutMs?: number | undefined;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly err: Writable;
}

/** Launches, configures and serves `provider`; resolves to the exit code when the client or the provider ends. */
export async function mcpServeCommand(provider: ProviderCommand, options: McpServeOptions): Promise<number> {
  const file = options.configFile === undefined ? {} : readJsonObjectFile(options.configFile, "--config");
  const { createMcpServer, relayKernelLog, serveOverStdio } = await import("../mcp/serve/mcp-server.js");
  const { serveConfig } = await import("../mcp/serve/serve-config.js");
  const fallbackName = path.basename(provider.args.at(-1) ?? provider.command).replace(/\.(m?[jt]s)$/, "");
  // Created once the provider has said who it is; the handler's ctx.log lines before then go nowhere.
  let server: Server | undefined;
  // The provider's stderr as invoke shows it by default: all but debug and trace lines.
  const showLine = (entry: HostLogEntry) => {
    if (providerLogShows("default", entry)) options.err.write(`${providerLogLine(entry)}\n`);
  };
  const deadline = new CommandDeadline(options.startTimeoutMs, { shown: () => true });
  const { launched, tools, mcp } = await deadline.run(async () => {
    const started = await launchProvider(provider, {
      ...deadline.launchOptions(showLine),
      kernel: { log: (request) => server && relayKernelLog(server, request) },
    });
    try {
      deadline.enter("GetSchema");
      const schema = await started.getSchema({ timeoutMs: deadline.callTimeoutMs(30_000) });
      const config = serveConfig(schema.configSchema, file);
      deadline.enter("Configure");
      await configureProvider(started, config, {
        configFile: options.configFile,
        shown: () => true,
        timeoutMs: deadline.callTimeoutMs(30_000),
      });
      deadline.enter("Describe");
      // Who the provider is, for the MCP client; a provider without Describe is named by its file.
      const producer = await started
        .describe({ timeoutMs: deadline.callTimeoutMs(30_000) })
        .then((described) => described.producer)
        .catch(() => undefined);
      server = createMcpServer(producer?.name || fallbackName, producer?.version || "0.0.0");
      return { launched: started, tools: schema.tools, mcp: server };
    } catch (e) {
      await started.kill();
      throw e;
    }
  });
  try {
    const callOptions = { ...options, sessionId: `mcp-${randomUUID()}` };
    const streams = { stdin: options.stdin, stdout: options.stdout, err: options.err };
    return await serveOverStdio(mcp, launched, tools, callOptions, streams);
  } finally {
    await launched.kill();
  }
}

/** The command line of `harness-tool mcp serve`. */
export const mcpServeCommandDefinition = defineCommand({
  name: "mcp serve",
  summary: "serve a provider's tools as an MCP server over stdio",
  description: [
    "Starts the provider as the kernel does, sends Configure (the --config file, or {}), and serves its tools to an MCP client over stdin and stdout: each tool with its input and output schemas and the annotations its kind, risk and idempotent imply (readOnlyHint, destructiveHint, idempotentHint). Stdout carries nothing but MCP's JSON-RPC; the provider's stderr goes to stderr.",
    'A sensitive config attribute comes only from the environment: write it {"env": "NAME"} in the --config file, as agent.hcl writes env("NAME"); a literal value is refused.',
    "Streamed events arrive as progress notifications (when the client sends a progressToken) and output as logging notifications; results as structuredContent and text; a tool error as an isError result naming its category. Cancelling the request cancels the call.",
    "--confirm resources asks the person, through MCP elicitation, to approve each resource call after showing its Preview (the plan/apply gate). An interactive tool always asks through elicitation; a client without elicitation gets an error result.",
  ].join("\n\n"),
  positionals: [{ name: "provider" }],
  flags: {
    config: { type: "string", value: "file.json", description: "a JSON object file sent as the Configure struct" },
    confirm: {
      type: "string",
      value: "resources|none",
      default: "none",
      description: "which calls wait for the person's confirmation through elicitation",
    },
    cwd: {
      type: "string",
      value: "dir",
      description: "CallContext.working_directory of every call (default: the current directory)",
    },
    timeout: {
      type: "string",
      value: "duration",
      default: "1m",
      description: "the deadline of the launch and Configure together (e.g. 30s)",
    },
    "call-timeout": {
      type: "string",
      value: "duration",
      description: "every call's deadline (default: the tool's own default_timeout, else 10m)",
    },
  },
  providerArgs: true,
  examples: [
    "harness-tool mcp serve dist/provider.mjs",
    "harness-tool mcp serve dist/provider.mjs --config mcp.json --confirm resources",
  ],
  run: async ({ values, positionals, providerArgs }, { out, err }) => {
    const [target] = positionals as [string];
    if (values.confirm !== "resources" && values.confirm !== "none")
      throw new UsageError(`--confirm takes resources or none, not ${values.confirm}`, { seeHelp: true });
    return mcpServeCommand(providerTarget(target, providerArgs), {
      ...(values.config ? { configFile: values.config } : {}),
      confirmResources: values.confirm === "resources",
      cwd: workingDirectory(values.cwd),
      startTimeoutMs: parseTimeout(values.timeout),
      callTimeoutMs:
        values["call-timeout"] === undefined ? undefined : parseTimeout(values["call-timeout"], "--call-timeout"),
      stdin: process.stdin,
      stdout: out,
      err,
    });
  },
});
