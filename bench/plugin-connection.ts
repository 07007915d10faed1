/**
 * The bench's side of a go-plugin connection, the same code for every contender: spawn the
 * process with the kernel's handshake environment, time the handshake line, connect a grpc-js
 * client to the socket it names, call GetSchema/Configure/Invoke with protobuf-es
 * serialization, and end the process as go-plugin's Kill() does (Shutdown, 2 s, SIGKILL).
 */
import { spawn, type ChildProcess } from "node:child_process";
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Client, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import {
  ConfigureRequestSchema,
  ConfigureResponseSchema,
  GetSchemaRequestSchema,
  GetSchemaResponseSchema,
  InvokeRequestSchema,
  InvokeResponseSchema,
  type GetSchemaResponse,
  type InvokeResponse,
} from "../generated/pluggableharness/tool/v1/tool_pb.js";
import { benchSocketDir } from "./bench-workspace.js";
import { killTree, processCpuMs, residentSetKb, trackChild } from "./measure.js";
import { servingPid } from "../test/support/serving-process.js";

/** go-plugin's environment for the kernel's handshake (docs/transport.md#the-kernels-handshake). */
export const handshakeEnvironment = {
  PLUGGABLEHARNESS_AGENT_PLUGIN: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
  PLUGIN_PROTOCOL_VERSIONS: "1",
  PLUGIN_MIN_PORT: "10000",
  PLUGIN_MAX_PORT: "25000",
} as const;

/**
 * The environment the kernel gives a provider: PATH, HOME, TMPDIR and go-plugin's variables, with
 * PLUGIN_UNIX_SOCKET_DIR pointing into the bench's own temp folder.
 */
export function kernelEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...handshakeEnvironment, PLUGIN_UNIX_SOCKET_DIR: benchSocketDir() };
  for (const name of ["PATH", "HOME", "TMPDIR"]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

const toolService = "/pluggableharness.tool.v1.ToolService";

function serializer<D extends DescMessage>(desc: D) {
  return (value: MessageShape<D>): Buffer => {
    const bytes = toBinary(desc, value);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}
function deserializer<D extends DescMessage>(desc: D) {
  return (bytes: Buffer): MessageShape<D> => fromBinary(desc, bytes);
}

const invokeSerialize = serializer(InvokeRequestSchema);
const invokeDeserialize = deserializer(InvokeResponseSchema);

/** What an Invoke stream delivered. */
export interface InvokeOutcome {
  readonly events: number;
  /** The terminal event's case ("result" or "error"), or undefined when the stream closed without one. */
  readonly terminal: string | undefined;
  /** Bytes of output_chunk data received. */
  readonly chunkBytes: number;
}

/** A process launched as a go-plugin plugin, and a client connected to it. */
export class PluginConnection {
  private constructor(
    readonly child: ChildProcess,
    readonly address: string,
    /** Spawn to the handshake line, in ms. */
    readonly handshakeMs: number,
    private readonly started: number,
    private client: Client | undefined,
    private readonly stderrLines: string[],
    private readonly stop: "controller" | "sigterm",
  ) {}

  /**
   * Spawns `command args` with the handshake environment and waits for the handshake line
   * (rejects after `timeoutMs`). With `connect: false` no gRPC client is created (the bare node
   * floor). `stop` says how close() ends it: go-plugin's Shutdown rpc, or SIGTERM for baselines
   * that do not serve the controller.
   */
  static async launch(
    command: string,
    args: readonly string[],
    options: {
      timeoutMs: number;
      connect?: boolean;
      cwd?: string;
      stop?: "controller" | "sigterm";
      env?: NodeJS.ProcessEnv;
    },
  ): Promise<PluginConnection> {
    const started = performance.now();
    const child = trackChild(
      spawn(command, args, {
        cwd: options.cwd,
        env: { ...kernelEnvironment(), ...options.env },
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    const stderrLines: string[] = [];
    child.stderr?.setEncoding("utf8").on("data", (text: string) => {
      if (stderrLines.length < 200) stderrLines.push(...text.split("\n").filter((l) => l !== ""));
    });
    const line = await new Promise<{ line: string; at: number }>((resolve, reject) => {
      let buffered = "";
      const timer = setTimeout(
        () => fail(new Error(`no handshake line within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        killTree(child);
        reject(new Error(`${error.message}; stderr: ${stderrLines.slice(-5).join(" | ")}`));
      };
      child.stdout?.setEncoding("utf8").on("data", (text: string) => {
        const at = performance.now();
        buffered += text;
        const nl = buffered.indexOf("\n");
        if (nl >= 0) {
          clearTimeout(timer);
          resolve({ line: buffered.slice(0, nl), at });
        }
      });
      child.on("error", fail);
      child.on("exit", (code, signal) => fail(new Error(`exited (${code ?? signal}) before the handshake line`)));
    });
    // Keep draining stdout: the host discards what follows the line, and a full pipe would block.
    child.stdout?.resume();
    const parts = line.line.split("|");
    const network = parts[2];
    const address = parts[3] ?? "";
    let client: Client | undefined;
    if (options.connect !== false) {
      if (parts[0] !== "1" || (network !== "unix" && network !== "tcp") || parts[4] !== "grpc") {
        killTree(child);
        throw new Error(`bad handshake line ${JSON.stringify(line.line)}`);
      }
      client = new Client(network === "unix" ? `unix:${address}` : address, credentials.createInsecure());
    }
    return new PluginConnection(
      child,
      address,
      line.at - started,
      started,
      client,
      stderrLines,
      options.stop ?? "controller",
    );
  }

  /**
   * When set, every call carries this `traceparent`, as the kernel's otelgrpc client handler
   * sends one (the telemetry suite).
   */
  traceparent: string | undefined;

  private metadata(): Metadata {
    const metadata = new Metadata();
    if (this.traceparent !== undefined) metadata.set("traceparent", this.traceparent);
    return metadata;
  }

  /** Milliseconds since spawn. */
  elapsedMs(): number {
    return performance.now() - this.started;
  }

  /** The process's VmRSS in KiB. */
  rssKb(): number | undefined {
    return this.child.pid === undefined ? undefined : residentSetKb(servingPid(this.child.pid));
  }

  /** CPU time the process has used so far, in ms. */
  cpuMs(): number | undefined {
    return this.child.pid === undefined ? undefined : processCpuMs(servingPid(this.child.pid));
  }

  /** The last stderr lines, for error messages. */
  stderrTail(): string {
    return this.stderrLines.slice(-5).join(" | ");
  }

  private requireClient(): Client {
    if (!this.client) throw new Error("not connected");
    return this.client;
  }

  private unary<I extends DescMessage, O extends DescMessage>(
    method: string,
    input: I,
    output: O,
    request: MessageInitShape<I>,
    timeoutMs: number,
  ): Promise<MessageShape<O>> {
    const client = this.requireClient();
    return new Promise((resolve, reject) => {
      client.makeUnaryRequest(
        `${toolService}/${method}`,
        serializer(input),
        deserializer(output),
        create(input, request) as MessageShape<I>,
        this.metadata(),
        { deadline: Date.now() + timeoutMs },
        (error: ServiceError | null, value?: MessageShape<O>) =>
          error || value === undefined ? reject(error ?? new Error("no reply")) : resolve(value),
      );
    });
  }

  /** ToolService/GetSchema. */
  getSchema(timeoutMs = 10_000): Promise<GetSchemaResponse> {
    return this.unary("GetSchema", GetSchemaRequestSchema, GetSchemaResponseSchema, {}, timeoutMs);
  }

  /** ToolService/Configure with an empty config, as the kernel does before the first Invoke. */
  async configure(timeoutMs = 10_000): Promise<void> {
    await this.unary("Configure", ConfigureRequestSchema, ConfigureResponseSchema, { config: {} }, timeoutMs);
  }

  /**
   * ToolService/Invoke of `toolName` with `args`; resolves when the stream ends. `readDelayMs`
   * reads like a slow kernel: the stream pauses that long after every event.
   */
  invoke(
    id: string,
    toolName: string,
    args: { [key: string]: string | number },
    timeoutMs = 60_000,
    readDelayMs = 0,
  ): Promise<InvokeOutcome> {
    const client = this.requireClient();
    const request = create(InvokeRequestSchema, {
      call: {
        id,
        toolName,
        arguments: args,
        callContext: { sessionId: "bench", turnId: "1", workingDirectory: "/tmp" },
      },
    });
    return new Promise((resolve, reject) => {
      let events = 0;
      let terminal: string | undefined;
      let chunkBytes = 0;
      const stream = client.makeServerStreamRequest(
        `${toolService}/Invoke`,
        invokeSerialize,
        invokeDeserialize,
        request,
        this.metadata(),
        {
          deadline: Date.now() + timeoutMs,
        },
      );
      stream.on("data", (response: InvokeResponse) => {
        events++;
        const event = response.event?.event;
        if (event?.case === "outputChunk") chunkBytes += event.value.data.byteLength;
        else if (event?.case === "result" || event?.case === "error") terminal = event.case;
        if (readDelayMs > 0) {
          stream.pause();
          setTimeout(() => stream.resume(), readDelayMs);
        }
      });
      stream.on("error", reject);
      stream.on("end", () => resolve({ events, terminal, chunkBytes }));
    });
  }

  /**
   * Ends the process as go-plugin's Kill() does: GRPCController/Shutdown (reply ignored), close the
   * connection, wait up to 2 s for the exit, then SIGKILL the process group.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (this.client && this.stop === "controller") {
      const client = this.client;
      await new Promise<void>((resolve) => {
        const empty = (): Buffer => Buffer.alloc(0);
        client.makeUnaryRequest(
          "/plugin.GRPCController/Shutdown",
          empty,
          (b: Buffer) => b,
          Buffer.alloc(0),
          new Metadata(),
          { deadline: Date.now() + 1000 },
          () => resolve(),
        );
      });
      client.close();
      this.client = undefined;
    } else {
      this.client?.close();
      this.client = undefined;
      if (child.exitCode === null) child.kill("SIGTERM");
    }
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const timer = setTimeout(() => killTree(child), 2000);
      await exited;
      clearTimeout(timer);
    }
  }
}
