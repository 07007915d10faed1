/**
 * The door between the ToolService semantics (runtime/service) and the go-plugin transport
 * (runtime/transport): protocol-level methods on protobuf-es messages. The semantics know nothing
 * of gRPC or go-plugin; the transport knows nothing of tools.
 */
import type {
  ConfigureRequest,
  ConfigureResponse,
  DescribeResponse,
  GetSchemaResponse,
  InvokeRequest,
  InvokeResponse,
  PreviewRequest,
  PreviewResponse,
  RenderRequest,
  RenderResponse,
  ToolService,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import type { ServiceSemantics } from "../../rpc/service-shape.js";
import type { CancelSignal } from "../../provider/cancel-signal.js";
import type { TraceHeaders } from "../../telemetry/trace-headers.js";

export type { CancelSignal } from "../../provider/cancel-signal.js";

/**
 * How the transport decodes ToolService requests: arguments and configs nested deeper than the
 * runtime accepts are left out and refused as `invalid_arguments` instead of failing to decode.
 */
export { decodeRequest } from "./argument-depth.js";

/**
 * Where Invoke writes its events, how it learns that the kernel went away, and (optionally) when
 * the kernel reads slower than the call produces: flow control as Node's Writable has it.
 */
export interface InvokeSink {
  /**
   * Sends one event; after the call ended or was cancelled it is dropped. Returns false when the
   * transport holds as much as it should (the kernel has not read yet): the service then sends
   * nothing more until `drained()` resolves. Anything else (true, nothing) means "go on".
   */
  send(response: InvokeResponse): boolean | void;
  /**
   * Resolves when the transport can take events again after `send` returned false, or when the
   * stream is gone. A sink whose `send` never returns false needs none.
   */
  drained?(): Promise<void>;
  /** Aborted when the kernel cancels the stream (closes it mid-call). */
  readonly cancelled: CancelSignal;
}

/**
 * pluggableharness.tool.v1.ToolService as the transport calls it. Unary methods reject with an
 * RpcStatusError for a gRPC status; anything else they reject with is reported as INTERNAL.
 * `trace`: the call's propagation headers (traceparent, tracestate, baggage) from its metadata;
 * the call's span continues the trace they name (runtime/telemetry). It extends the service's
 * shape derived from the generated descriptor, so an rpc that drifts from the proto fails to
 * compile here (rpc/service-shape.ts).
 */
export interface ToolServiceCore extends ServiceSemantics<typeof ToolService, InvokeSink> {
  /** Static and cheap: built once when the service is created. */
  getSchema(trace?: TraceHeaders): GetSchemaResponse;
  /** `deadline`: the call's, when the host set one; it bounds the provider's configure hook. */
  configure(request: ConfigureRequest, trace?: TraceHeaders, deadline?: Date): Promise<ConfigureResponse>;
  /** Resolves when the stream should close (OK); never rejects for a handler's failure. */
  invoke(request: InvokeRequest, sink: InvokeSink, trace?: TraceHeaders): Promise<void>;
  render(request: RenderRequest, trace?: TraceHeaders): Promise<RenderResponse>;
  preview(request: PreviewRequest, trace?: TraceHeaders): Promise<PreviewResponse>;
  describe(trace?: TraceHeaders): DescribeResponse;
  /**
   * Cancels every in-flight call (their signals abort, their children are killed) and resolves
   * when they have all ended or `graceMs` has passed, whichever is first.
   */
  shutdown(graceMs: number): Promise<void>;
  /**
   * Whether a shutdown now would have anything to wait for: a call in flight or a child still
   * running. A core without it is taken to be busy.
   */
  busy?(): boolean;
}
