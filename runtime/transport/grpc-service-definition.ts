/**
 * grpc-js service definitions built from protobuf-es descriptors (no proto-loader): the method
 * paths come from the GenService (`/pluggableharness.tool.v1.ToolService/Invoke`), the
 * (de)serializers are protobuf-es `toBinary`/`fromBinary`, so the wire shape cannot drift from
 * the generated types.
 */
import {
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethod,
  type DescService,
  type MessageShape,
} from "@bufbuild/protobuf";
import type {
  handleBidiStreamingCall,
  handleClientStreamingCall,
  handleServerStreamingCall,
  handleUnaryCall,
  MethodDefinition,
  ServiceDefinition,
  UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { InvokeResponse } from "../generated/pluggableharness/tool/v1/tool_pb.js";
import type { RpcRequest, RpcResponse } from "../rpc/service-shape.js";
import { encodeOutputChunkResponse, ScratchBuffer } from "./output-chunk-encoding.js";
import { encodeResultResponse } from "./result-encoding.js";

/** The grpc-js handler of one rpc, for its kind, on `Req` and `Res`. */
type GrpcHandler<M extends DescMethod, Req, Res> = M["methodKind"] extends "unary"
  ? handleUnaryCall<Req, Res>
  : M["methodKind"] extends "server_streaming"
    ? handleServerStreamingCall<Req, Res>
    : M["methodKind"] extends "client_streaming"
      ? handleClientStreamingCall<Req, Res>
      : handleBidiStreamingCall<Req, Res>;

/**
 * A grpc-js handler table derived from a protobuf-es service descriptor: one handler per rpc, keyed
 * by its localName, of the rpc's kind (unary, server streaming, ...) on its request and response
 * messages. A table that misses an rpc, answers another message or streams where the proto does
 * not fails to compile.
 */
export type GrpcServiceHandlers<S extends DescService> = {
  [K in keyof S["method"]]: GrpcHandler<S["method"][K], RpcRequest<S["method"][K]>, RpcResponse<S["method"][K]>>;
};

/** As GrpcServiceHandlers, for a service whose messages stay bytes (rawMethod): the rpcs and their kinds checked. */
export type RawServiceHandlers<S extends DescService> = {
  [K in keyof S["method"]]: GrpcHandler<S["method"][K], Uint8Array, Uint8Array>;
};

/** Adds a protobuf-es service to a server (grpc-js's or node-grpc/'s) with a handler table checked against its descriptor. */
export function addGrpcService<S extends DescService>(
  server: { addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void },
  service: S,
  handlers: GrpcServiceHandlers<S>,
  decodeRequest?: RequestDecoder,
): void {
  server.addService(grpcServiceDefinition(service, decodeRequest), handlers as UntypedServiceImplementation);
}

/** How a server decodes the requests it receives (default: protobuf-es `fromBinary` with its defaults). */
export type RequestDecoder = <Desc extends DescMessage>(desc: Desc, bytes: Uint8Array) => MessageShape<Desc>;

/**
 * The grpc-js definition of every method of a protobuf-es service, keyed by the method's
 * localName; `decodeRequest` replaces how requests are decoded (the ToolService's, which admits
 * deep arguments: runtime/service/calls/argument-depth.ts).
 */
export function grpcServiceDefinition(service: DescService, decodeRequest?: RequestDecoder): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      originalName: method.name,
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      ...messageCodec("request", method.input, decodeRequest),
      ...messageCodec("response", method.output),
    } as MethodDefinition<unknown, unknown>;
  }
  return definition;
}

/** Invoke's responses: output chunks, the bulk of a stream, take the one-copy path; results theirs. */
const invokeResponseName = "pluggableharness.tool.v1.InvokeResponse";

function messageCodec<Desc extends DescMessage>(side: "request" | "response", desc: Desc, decode?: RequestDecoder) {
  const generic = (value: MessageShape<Desc>): Buffer => {
    const bytes = toBinary(desc, value);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  let serialize = generic;
  if (desc.typeName === invokeResponseName) {
    // grpc-js's server copies a serialized response into its frame at once: one scratch buffer per
    // method serves every output chunk (at most 64 KiB of data from the runtime, and their framing).
    const scratch = side === "response" ? new ScratchBuffer(128 * 1024) : undefined;
    serialize = (value: MessageShape<Desc>): Buffer =>
      encodeOutputChunkResponse(value as unknown as InvokeResponse, scratch) ??
      encodeResultResponse(value as unknown as InvokeResponse, scratch) ??
      generic(value);
  }
  const deserialize = decode
    ? (bytes: Buffer): MessageShape<Desc> => decode(desc, bytes)
    : (bytes: Buffer): MessageShape<Desc> => fromBinary(desc, bytes);
  return side === "request"
    ? { requestSerialize: serialize, requestDeserialize: deserialize }
    : { responseSerialize: serialize, responseDeserialize: deserialize };
}

/**
 * A method whose messages are raw bytes, decoded by its handler: go-plugin's and gRPC health's
 * messages are loaded after start-up (go-plugin-messages.ts), and a broker ConnInfo that does not
 * decode is skipped rather than ending the stream.
 */
export function rawMethod(
  path: string,
  shape: { requestStream: boolean; responseStream: boolean },
): MethodDefinition<Uint8Array, Uint8Array> {
  const serialize = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const deserialize = (bytes: Buffer): Uint8Array => bytes;
  return {
    path,
    requestStream: shape.requestStream,
    responseStream: shape.responseStream,
    requestSerialize: serialize,
    requestDeserialize: deserialize,
    responseSerialize: serialize,
    responseDeserialize: deserialize,
  };
}

/**
 * go-plugin's services and grpc health, as raw-bytes definitions (messages in go-plugin-messages.ts).
 * The paths are the generated service descriptors' (vendor-proto/), which test/runtime/transport/wire-codecs.test.ts
 * checks; written out here so that start-up boots none of those descriptors.
 */
export const goPluginServices = {
  health: {
    check: rawMethod("/grpc.health.v1.Health/Check", { requestStream: false, responseStream: false }),
  },
  broker: {
    startStream: rawMethod("/plugin.GRPCBroker/StartStream", { requestStream: true, responseStream: true }),
  },
  controller: {
    shutdown: rawMethod("/plugin.GRPCController/Shutdown", { requestStream: false, responseStream: false }),
  },
  stdio: {
    streamStdio: rawMethod("/plugin.GRPCStdio/StreamStdio", { requestStream: false, responseStream: true }),
  },
} as const satisfies Record<string, ServiceDefinition>;
