/**
 * The shape of a service as its protobuf-es descriptor gives it (`typeof ToolService["method"]`:
 * each rpc's kind, request and response schemas), for the interfaces written beside the proto: the
 * semantics' side of a service (ToolServiceCore), a client the semantics call (KernelClient), and
 * the transport's handler tables (transport/grpc-service-definition.ts). An interface that extends
 * one of these fails to compile when an rpc drifts from the proto: a new rpc, another request or
 * response message, unary where the proto streams. Types only: nothing here exists at run time.
 */
import type { DescMessage, DescMethod, DescService, MessageShape } from "@bufbuild/protobuf";

/** The request message of an rpc. */
export type RpcRequest<M extends DescMethod> = MessageShape<M["input"]>;

/** The response message of an rpc. */
export type RpcResponse<M extends DescMethod> = MessageShape<M["output"]>;

/** True when a message has no fields (a request the caller need not pass, a response nobody reads). */
type IsEmpty<Desc extends DescMessage> = [Exclude<keyof MessageShape<Desc>, "$typeName" | "$unknown">] extends [never]
  ? true
  : false;

/**
 * What a unary rpc's implementation is handed: its request first; an rpc whose request is empty
 * takes none. Whatever follows (trace headers, a deadline) is the interface's own.
 */
type RequestParameters<M extends DescMethod> =
  IsEmpty<M["input"]> extends true ? never[] : [request: RpcRequest<M>, ...extra: never[]];

/** An answer: the response message; an empty response may be nothing at all. */
type Answer<M extends DescMethod> = IsEmpty<M["output"]> extends true ? RpcResponse<M> | void : RpcResponse<M>;

/** Where a server-streaming rpc's implementation writes its responses. */
export interface ResponseSink<M extends DescMethod> {
  send(response: RpcResponse<M>): unknown;
}

/**
 * The sink a server-streaming rpc's implementation takes: the interface's own `Sink` when it takes
 * the rpc's responses, else a bare ResponseSink, which no richer sink accepts (a compile error).
 */
type StreamSink<M extends DescMethod, Sink> = unknown extends Sink
  ? ResponseSink<M>
  : Sink extends ResponseSink<M>
    ? Sink
    : ResponseSink<M>;

/** One rpc as the semantics serve it. */
type ServedRpc<M extends DescMethod, Sink> = M["methodKind"] extends "unary"
  ? (...args: RequestParameters<M>) => Answer<M> | Promise<Answer<M>>
  : M["methodKind"] extends "server_streaming"
    ? (request: RpcRequest<M>, sink: StreamSink<M, Sink>, ...extra: never[]) => Promise<void>
    : never;

/**
 * The semantics' side of a service, one member per rpc: a unary rpc takes its request and answers
 * its response (or a promise of it), a server-streaming rpc takes its request and a sink of its
 * responses (`Sink`, the interface's sink type, when it has more than `send`) and resolves when
 * the stream should close. Extend it with the interface the transport calls; each member keeps its
 * own documentation and extra parameters.
 */
export type ServiceSemantics<S extends DescService, Sink = unknown> = {
  [K in keyof S["method"]]: ServedRpc<S["method"][K], Sink>;
};

/** One unary rpc as the semantics call it. */
type CalledRpc<M extends DescMethod> = M["methodKind"] extends "unary"
  ? (...args: RequestParameters<M>) => Promise<Answer<M>>
  : never;

/** A client of a service the semantics call (the kernel's callbacks): one member per unary rpc. */
export type ServiceCaller<S extends DescService> = { [K in keyof S["method"]]: CalledRpc<S["method"][K]> };
