// The service types are derived from protobuf-es's generated descriptors, so a proto that drifts
// from the code fails to compile. Each drift below is the generated ToolService,
// KernelCallbackService or HookSubscriberService with one rpc changed, checked against the code as
// it is: the transport's handler tables, the ToolServiceCore door and the KernelClient. Each
// `@ts-expect-error` sits on the line the compiler must reject; an error that moves or disappears
// fails the type-check under TS 5.9 and TS 7 (test/typecheck.test.ts). builder-diagnostics.test.ts
// asserts the codes and messages.
import type { DescMessage, DescMethod, DescService } from "@bufbuild/protobuf";
import type {
  DispatchHookRequestSchema,
  DispatchHookResponseSchema,
  HookSubscriberService,
} from "../../../generated/pluggableharness/hook/v1/hook_pb.js";
import type {
  CountTokensResultSchema,
  KernelCallbackService,
  LogRequestSchema,
} from "../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import type {
  DescribeRequestSchema,
  GetSchemaResponseSchema,
  InvokeRequestSchema,
  InvokeResponseSchema,
  RenderRequestSchema,
  RenderResponseSchema,
  ToolService,
} from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import type { ServiceCaller, ServiceSemantics } from "../../../runtime/rpc/service-shape.js";
import type { InvokeSink, ToolServiceCore } from "../../../runtime/service/calls/tool-service-core.js";
import type { KernelClient } from "../../../runtime/service/kernel/kernel-client.js";
import type { GrpcServiceHandlers, RawServiceHandlers } from "../../../runtime/transport/grpc-service-definition.js";
import type { hookServiceHandlers } from "../../../runtime/transport/hook-service-handlers.js";
import type { toolServiceHandlers } from "../../../runtime/transport/tool-service-handlers.js";

/** An rpc as protoc-gen-es describes it in a service's GenService type. */
type Rpc<Kind extends DescMethod["methodKind"], I extends DescMessage, O extends DescMessage> = {
  methodKind: Kind;
  input: I;
  output: O;
} & DescMethod;

/** A service descriptor with some of its rpcs replaced or added, as a regenerated proto would give it. */
type Drifted<S extends DescService, Changes extends Record<string, DescMethod>> = Omit<S, "method"> & {
  method: Omit<S["method"], keyof Changes> & Changes;
};

type NewToolRpc = Drifted<
  typeof ToolService,
  { cancel: Rpc<"unary", typeof InvokeRequestSchema, typeof InvokeResponseSchema> }
>;
type DescribeAnswersSchema = Drifted<
  typeof ToolService,
  { describe: Rpc<"unary", typeof DescribeRequestSchema, typeof GetSchemaResponseSchema> }
>;
type RenderStreams = Drifted<
  typeof ToolService,
  { render: Rpc<"server_streaming", typeof RenderRequestSchema, typeof RenderResponseSchema> }
>;
type InvokeUnary = Drifted<
  typeof ToolService,
  { invoke: Rpc<"unary", typeof InvokeRequestSchema, typeof InvokeResponseSchema> }
>;
type LogAnswersCount = Drifted<
  typeof KernelCallbackService,
  { log: Rpc<"unary", typeof LogRequestSchema, typeof CountTokensResultSchema> }
>;
type LogStreams = Drifted<
  typeof KernelCallbackService,
  { log: Rpc<"server_streaming", typeof LogRequestSchema, typeof CountTokensResultSchema> }
>;
type DispatchHookStreams = Drifted<
  typeof HookSubscriberService,
  { dispatchHook: Rpc<"server_streaming", typeof DispatchHookRequestSchema, typeof DispatchHookResponseSchema> }
>;

declare const handlers: ReturnType<typeof toolServiceHandlers>;
declare const hookHandlers: ReturnType<typeof hookServiceHandlers>;
declare const core: ToolServiceCore;
declare const kernel: KernelClient;

// The code as it is matches the generated descriptors.
export const matching: [GrpcServiceHandlers<typeof ToolService>, RawServiceHandlers<typeof HookSubscriberService>] = [
  handlers,
  hookHandlers,
];
export const matchingCore: ServiceSemantics<typeof ToolService, InvokeSink> = core;
export const matchingKernel: ServiceCaller<typeof KernelCallbackService> = kernel;

// @ts-expect-error the transport has no handler for a new rpc
export const handlersForNewRpc: GrpcServiceHandlers<NewToolRpc> = handlers;
// @ts-expect-error the transport's Describe answers a DescribeResponse
export const handlersForNewDescribe: GrpcServiceHandlers<DescribeAnswersSchema> = handlers;
// @ts-expect-error the transport's Render is unary
export const handlersForStreamingRender: GrpcServiceHandlers<RenderStreams> = handlers;
// @ts-expect-error the transport's Invoke streams
export const handlersForUnaryInvoke: GrpcServiceHandlers<InvokeUnary> = handlers;
// @ts-expect-error a handler of the wrong kind in the table
export const swapped: GrpcServiceHandlers<typeof ToolService> = { ...handlers, invoke: handlers.render };
// @ts-expect-error the hook transport's DispatchHook is unary
export const hookHandlersForStreaming: RawServiceHandlers<DispatchHookStreams> = hookHandlers;

// @ts-expect-error the core does not answer a new rpc
export const coreForNewRpc: ServiceSemantics<NewToolRpc, InvokeSink> = core;
// @ts-expect-error the core's describe answers a DescribeResponse
export const coreForNewDescribe: ServiceSemantics<DescribeAnswersSchema, InvokeSink> = core;
// @ts-expect-error the core's render answers once
export const coreForStreamingRender: ServiceSemantics<RenderStreams, InvokeSink> = core;
// @ts-expect-error the core's invoke streams into a sink
export const coreForUnaryInvoke: ServiceSemantics<InvokeUnary, InvokeSink> = core;

// @ts-expect-error the kernel client's log reads no CountTokensResult
export const kernelForNewLog: ServiceCaller<LogAnswersCount> = kernel;
// @ts-expect-error the kernel client calls unary rpcs only
export const kernelForStreamingLog: ServiceCaller<LogStreams> = kernel;
