/**
 * pluggableharness.tool.v1.ToolService as handlers shaped for grpc-js (node-grpc/'s server takes
 * them too), delegating to the ToolServiceCore: unary failures become statuses (an RpcStatusError keeps its code, its ToolError goes into
 * google.rpc.Status.details; anything else is INTERNAL, never UNKNOWN:
 * docs/runtime.md#the-error-surface), and Invoke's stream is closed OK when the core says so, or
 * left when the kernel cancelled it. The Invoke sink reports the call's backpressure (write() false,
 * then 'drain') to the core.
 */
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream, ServiceError } from "@grpc/grpc-js";
import { GrpcCode } from "../errors/rpc-status-error.js";
import { StatusTrailers } from "./status-trailers.js";
import type {
  ToolError as WireToolError,
  InvokeRequest,
  InvokeResponse,
  ToolService,
} from "../generated/pluggableharness/tool/v1/tool_pb.js";
import type { CancelSignal, ToolServiceCore } from "../service/calls/tool-service-core.js";
import { traceHeadersFromMetadata, type TraceHeaders } from "../telemetry/trace-headers.js";
import type { GrpcServiceHandlers } from "./grpc-service-definition.js";
import { hostLog } from "./host-log.js";
import { stackOf } from "../errors/classify-error.js";

/**
 * google.rpc.Status (rpc-status-details.ts) is loaded by the first failure, not at start-up: no
 * descriptor is booted before the handshake line that it does not need (docs/transport.md).
 */
let statusDetails: Promise<typeof import("../errors/rpc-status-details.js")> | undefined;

/** Imports rpc-status-details.ts once; serveGoPlugin warms it after the handshake line. */
export const loadStatusDetails = () => (statusDetails ??= import("../errors/rpc-status-details.js"));

/** The status a failed unary call ends with. */
export async function serviceErrorFrom(
  error: unknown,
): Promise<Partial<ServiceError> & { code: number; details: string }> {
  const statusError = asRpcStatusError(error);
  if (statusError) {
    const { statusDetailsTrailer, statusWithToolError } = await loadStatusDetails();
    const trailers = new StatusTrailers();
    const code = statusError.code === GrpcCode.UNKNOWN ? GrpcCode.INTERNAL : statusError.code;
    trailers.set(
      statusDetailsTrailer,
      Buffer.from(statusWithToolError(code, statusError.message, statusError.toolError)),
    );
    return { code, details: statusError.message, metadata: trailers.asMetadata() };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: GrpcCode.INTERNAL, details: `internal error: ${message}` };
}

/** An RpcStatusError, also from another copy of this package. */
function asRpcStatusError(error: unknown): { code: number; message: string; toolError?: WireToolError } | undefined {
  if (!(error instanceof Error) || error.name !== "RpcStatusError") return undefined;
  const code: unknown = (error as { code?: unknown }).code;
  if (typeof code !== "number") return undefined;
  const toolError = (error as { toolError?: WireToolError }).toolError;
  return toolError ? { code, message: error.message, toolError } : { code, message: error.message };
}

/** The call's deadline as a Date; undefined when the host set none (grpc-js says Infinity). */
function deadlineOf(call: ServerUnaryCall<unknown, unknown>): Date | undefined {
  const deadline = call.getDeadline();
  if (deadline instanceof Date) return Number.isFinite(deadline.getTime()) ? deadline : undefined;
  return Number.isFinite(deadline) ? new Date(deadline) : undefined;
}

function unary<Req, Res>(
  run: (request: Req, trace: TraceHeaders | undefined, call: ServerUnaryCall<Req, Res>) => Res | Promise<Res>,
) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
    let result: Res | Promise<Res>;
    try {
      result = run(call.request, traceHeadersFromMetadata(call.metadata), call);
    } catch (error) {
      void serviceErrorFrom(error).then((status) => callback(status));
      return;
    }
    Promise.resolve(result).then(
      (response) => callback(null, response),
      (error: unknown) => serviceErrorFrom(error).then((status) => callback(status)),
    );
  };
}

/**
 * An Invoke stream's cancellation as the service watches it (CancelSignal): a flag and a few
 * listeners, where an AbortController per call cost a measurable share of a trivial call's CPU
 * (bench/RESULTS.md, Invoke). Listeners run once, in the order they were added.
 */
export class StreamCancellation implements CancelSignal {
  #aborted = false;
  #listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  addEventListener(_type: "abort", listener: () => void, _options?: { readonly once?: boolean }): void {
    if (!this.#aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const at = this.#listeners.indexOf(listener);
    if (at >= 0) this.#listeners.splice(at, 1);
  }

  /** Marks the stream cancelled and runs the listeners (once). */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        // As an AbortSignal's listener: its failure is reported, the others still run.
        hostLog("error", "a cancellation listener failed inside the runtime", {
          error: stackOf(error),
        });
      }
    }
  }
}

/** A call of node-grpc's server: it ends with a last message in one write. */
interface EndsWithMessage<Res> {
  endWith(lastMessage: Res): void;
}

/** Ends an Invoke stream OK after `last` (if any): one write on node-grpc, write then end on grpc-js. */
function endWith(call: ServerWritableStream<InvokeRequest, InvokeResponse>, last: InvokeResponse | undefined): void {
  if (last === undefined) {
    call.end();
    return;
  }
  const own = call as unknown as Partial<EndsWithMessage<InvokeResponse>>;
  if (typeof own.endWith === "function") return own.endWith(last);
  call.write(last);
  call.end();
}

/**
 * One Invoke stream as the core's sink (InvokeSink) and its cancellation: one object per call.
 * Flow control: write() says false once the call holds a full buffer (1 MiB on node:http2's
 * server, 16 messages on grpc-js's: the kernel stopped reading, HTTP/2's window is shut); 'drain'
 * says when it has room again. The terminal event (result or error: nothing follows it) is held
 * and sent with the end of the stream, in one write where the transport can (node-grpc's endWith).
 */
class InvokeStream extends StreamCancellation {
  readonly #call: ServerWritableStream<InvokeRequest, InvokeResponse>;
  #open = true;
  #terminal: InvokeResponse | undefined;

  constructor(call: ServerWritableStream<InvokeRequest, InvokeResponse>, observer: ToolServiceObserver) {
    super();
    this.#call = call;
    // seed: a stream cancelled by the kernel is normal control flow, never a failure.
    call.on("cancelled", () => {
      observer.streamCancelled?.();
      this.#stop();
    });
    call.on("error", () => this.#stop());
  }

  /** The sink's cancellation is the stream itself. */
  get cancelled(): CancelSignal {
    return this;
  }

  send(response: InvokeResponse): boolean {
    if (!this.#open) return true;
    const kind = response.event?.event.case;
    if (kind === "result" || kind === "error") {
      this.#terminal = response;
      return true;
    }
    return this.#call.write(response);
  }

  drained(): Promise<void> {
    const call = this.#call;
    if (!this.#open || !call.writableNeedDrain) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        call.off("drain", done);
        this.removeEventListener("abort", done);
        resolve();
      };
      call.on("drain", done);
      this.addEventListener("abort", done, { once: true });
    });
  }

  /** The core ran the call to its end: the stream is closed OK (after its terminal event). */
  finish(): void {
    if (!this.#open) return;
    this.#open = false;
    endWith(this.#call, this.#terminal);
  }

  /** The core failed: its own bug (it promises never to reject for a handler's failure). */
  fail(error: unknown): void {
    hostLog("error", "ToolService.Invoke failed inside the runtime", { error: stackOf(error) });
    if (!this.#open) return;
    this.#open = false;
    if (this.#terminal) this.#call.write(this.#terminal);
    void serviceErrorFrom(error).then((status) => this.#call.emit("error", status));
  }

  #stop(): void {
    this.#open = false;
    this.abort();
  }
}

/** What the transport learns from the ToolService streams. */
export interface ToolServiceObserver {
  /** The host cancelled (reset) an Invoke stream. */
  readonly streamCancelled?: () => void;
}

/**
 * The implementation of ToolService, its table (grpc-js's handler shape) typed from the generated
 * descriptor (every rpc, its messages, its kind), keyed like grpcServiceDefinition(ToolService).
 */
export function toolServiceHandlers(
  core: ToolServiceCore,
  observer: ToolServiceObserver = {},
): GrpcServiceHandlers<typeof ToolService> {
  return {
    getSchema: unary((_, trace) => core.getSchema(trace)),
    // Only Configure reads its deadline (the configure hook's bound); the other calls never look it up.
    configure: unary((request, trace, call) =>
      core.configure(request, trace, deadlineOf(call as ServerUnaryCall<unknown, unknown>)),
    ),
    render: unary((request, trace) => core.render(request, trace)),
    preview: unary((request, trace) => core.preview(request, trace)),
    describe: unary((_, trace) => core.describe(trace)),
    invoke: (call: ServerWritableStream<InvokeRequest, InvokeResponse>) => {
      const stream = new InvokeStream(call, observer);
      let running: Promise<void>;
      try {
        running = core.invoke(call.request, stream, traceHeadersFromMetadata(call.metadata));
      } catch (error) {
        running = Promise.reject(error);
      }
      running.then(
        () => stream.finish(),
        (error: unknown) => stream.fail(error),
      );
    },
  };
}
