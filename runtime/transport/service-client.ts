/**
 * A grpc-js client for one protobuf-es service: unary calls as promises (with an AbortSignal and
 * an optional deadline) and server streams as grpc-js readable streams, typed from the descriptor.
 * Used by the kernel callback client and by the test host.
 */
import type { DescMethodServerStreaming, DescMethodUnary, DescService, MessageShape } from "@bufbuild/protobuf";
import { Client, type CallOptions, type ClientReadableStream, type ServiceError, Metadata } from "@grpc/grpc-js";
import { grpcServiceDefinition } from "./grpc-service-definition.js";
import { type ChannelSecurity, plaintextChannel } from "./tls/channel-security.js";

/** Options of one call. */
export interface CallControl {
  readonly signal?: AbortSignal;
  /** Milliseconds from now. */
  readonly timeoutMs?: number;
  /** Request metadata (e.g. traceparent); header names lower case. */
  readonly metadata?: { readonly [name: string]: string | undefined };
}

/** A unary call's failure: the grpc-js ServiceError (code, details, trailers in `metadata`). */
export type CallError = ServiceError;

export { type ChannelSecurity, plaintextChannel };

/** The grpc-js target for a go-plugin network/address pair. */
export function grpcTarget(network: string, address: string): string {
  if (network === "unix") return `unix:${address}`;
  if (network === "tcp") return address;
  throw new Error(`unknown network ${JSON.stringify(network)} for address ${address}`);
}

/** A client of `service` at a go-plugin address, plaintext unless told otherwise. */
export class ServiceClient<S extends DescService> {
  readonly #client: Client;
  readonly #definition: ReturnType<typeof grpcServiceDefinition>;

  constructor(
    readonly service: S,
    target: string,
    security: ChannelSecurity = plaintextChannel,
  ) {
    this.#definition = grpcServiceDefinition(service);
    this.#client = new Client(target, security.credentials, {
      "grpc.max_receive_message_length": -1,
      ...security.options,
    });
  }

  /** Calls a unary method; rejects with a CallError. */
  unary<M extends DescMethodUnary>(
    method: M,
    request: MessageShape<M["input"]>,
    control: CallControl = {},
  ): Promise<MessageShape<M["output"]>> {
    const def = this.#method(method.localName);
    return new Promise((resolve, reject) => {
      const call = this.#client.makeUnaryRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        request,
        metadataOf(control),
        callOptions(control),
        (error: ServiceError | null, response?: unknown) => {
          control.signal?.removeEventListener("abort", onAbort);
          if (error) reject(error);
          else resolve(response as MessageShape<M["output"]>);
        },
      );
      const onAbort = () => call.cancel();
      if (control.signal?.aborted) call.cancel();
      else control.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Starts a server-streaming call. */
  serverStream<M extends DescMethodServerStreaming>(
    method: M,
    request: MessageShape<M["input"]>,
    control: CallControl = {},
  ): ClientReadableStream<MessageShape<M["output"]>> {
    const def = this.#method(method.localName);
    const call = this.#client.makeServerStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      request,
      metadataOf(control),
      callOptions(control),
    ) as ClientReadableStream<MessageShape<M["output"]>>;
    if (control.signal?.aborted) call.cancel();
    else control.signal?.addEventListener("abort", () => call.cancel(), { once: true });
    return call;
  }

  /** The underlying grpc-js client, for go-plugin's raw-bytes services on the same channel. */
  get raw(): Client {
    return this.#client;
  }

  /** Closes the channel. */
  close(): void {
    this.#client.close();
  }

  #method(localName: string) {
    const def = this.#definition[localName];
    if (!def) throw new Error(`${this.service.typeName} has no method ${localName}`);
    return def as typeof def & {
      requestSerialize: (v: unknown) => Buffer;
      responseDeserialize: (b: Buffer) => unknown;
    };
  }
}

function metadataOf(control: CallControl): Metadata {
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(control.metadata ?? {}))
    if (typeof value === "string") metadata.set(name, value);
  return metadata;
}

function callOptions(control: CallControl): CallOptions {
  return control.timeoutMs === undefined ? {} : { deadline: Date.now() + control.timeoutMs };
}
