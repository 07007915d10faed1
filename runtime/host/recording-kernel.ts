/**
 * The kernel's side of the callbacks: a KernelCallbackService on a unix socket that records every
 * call and answers with the host's responders (or harmless defaults), served to the provider
 * through broker ID 1 like the kernel does. `launch()` starts one per provider (the CLI reads the
 * recorded Log calls); `harness-tool/testing` also exports it alone.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  Server,
  ServerCredentials,
  status as grpcStatus,
  type sendUnaryData,
  type ServerUnaryCall,
} from "@grpc/grpc-js";
import {
  CountTokensResultSchema,
  EmitResultSchema,
  KernelCallbackService,
  LogResultSchema,
  RunSessionResultSchema,
  type CountTokensRequest,
  type EmitRequest,
  type LogRequest,
  type RunSessionRequest,
} from "../generated/pluggableharness/kernel/v1/kernel_pb.js";
import { addGrpcService } from "../transport/grpc-service-definition.js";

/** How the host's kernel answers the callbacks that return something. */
export interface KernelResponders {
  /** Sees each Log as it arrives (recorded either way; the answer is always empty), for showing a handler's ctx.log live. */
  log?: (request: LogRequest) => void;
  emit?: (
    request: EmitRequest,
  ) => MessageInitShape<typeof EmitResultSchema> | Promise<MessageInitShape<typeof EmitResultSchema>>;
  runSession?: (
    request: RunSessionRequest,
  ) => MessageInitShape<typeof RunSessionResultSchema> | Promise<MessageInitShape<typeof RunSessionResultSchema>>;
  countTokens?: (
    request: CountTokensRequest,
  ) => MessageInitShape<typeof CountTokensResultSchema> | Promise<MessageInitShape<typeof CountTokensResultSchema>>;
}

/** The requests of each callback, in arrival order. */
export interface RecordedCallbacks {
  readonly log: readonly LogRequest[];
  readonly emit: readonly EmitRequest[];
  readonly runSession: readonly RunSessionRequest[];
  readonly countTokens: readonly CountTokensRequest[];
}

type CallbackName = keyof RecordedCallbacks;
type RequestOf<K extends CallbackName> = RecordedCallbacks[K][number];

/** A running recording kernel. */
export interface RecordingKernel {
  readonly address: string;
  readonly calls: RecordedCallbacks;
  /**
   * The `traceparent` each recorded call carried (undefined: none), index for index with `calls`:
   * a callback continues the trace of the call that made it.
   */
  readonly traceparents: { readonly [K in CallbackName]: readonly (string | undefined)[] };
  /** Resolves with the first recorded (or next) request of `method` that `match` accepts. */
  waitFor<K extends CallbackName>(
    method: K,
    match?: (request: RequestOf<K>) => boolean,
    timeoutMs?: number,
  ): Promise<RequestOf<K>>;
  close(): void;
}

/** Options of startRecordingKernel. */
export interface RecordingKernelOptions {
  /** Plaintext unless given; with AutoMTLS the host serves its broker connections with mutual TLS. */
  readonly credentials?: ServerCredentials;
}

/** Starts a recording KernelCallbackService on a fresh unix socket under the temp dir. */
export async function startRecordingKernel(
  responders: KernelResponders = {},
  options: RecordingKernelOptions = {},
): Promise<RecordingKernel> {
  const calls = {
    log: [] as LogRequest[],
    emit: [] as EmitRequest[],
    runSession: [] as RunSessionRequest[],
    countTokens: [] as CountTokensRequest[],
  };
  const traceparents = {
    log: [] as (string | undefined)[],
    emit: [] as (string | undefined)[],
    runSession: [] as (string | undefined)[],
    countTokens: [] as (string | undefined)[],
  };
  const waiters = new Set<() => void>();
  const record = <K extends CallbackName>(method: K, request: RequestOf<K>, traceparent: string | undefined) => {
    traceparents[method].push(traceparent);
    (calls[method] as RequestOf<K>[]).push(request);
    for (const wake of [...waiters]) wake();
  };
  const answer =
    <Req, Res>(method: CallbackName, respond: (request: Req) => Res | Promise<Res>) =>
    (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => {
      record(method, call.request as never, call.metadata.get("traceparent").map(String)[0]);
      Promise.resolve()
        .then(() => respond(call.request))
        .then(
          (response) => callback(null, response),
          (error: unknown) =>
            callback({ code: grpcStatus.INTERNAL, details: error instanceof Error ? error.message : String(error) }),
        );
    };
  const server = new Server();
  addGrpcService(server, KernelCallbackService, callbackHandlers(responders, answer));
  const address = path.join(os.tmpdir(), `plugin-kernel-${randomBytes(6).toString("hex")}`);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix:${address}`, options.credentials ?? ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );

  return {
    address,
    calls,
    traceparents,
    waitFor<K extends CallbackName>(
      method: K,
      match: (request: RequestOf<K>) => boolean = () => true,
      timeoutMs = 5000,
    ) {
      return waitForRecorded(calls, waiters, method, match, timeoutMs);
    },
    close() {
      server.forceShutdown();
      rmSync(address, { force: true });
    },
  };
}

/** How one callback is served: its method's name and what it answers, recorded before answering. */
type Answer = <Req, Res>(
  method: CallbackName,
  respond: (request: Req) => Res | Promise<Res>,
) => (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>) => void;

/** The four callbacks: the host's responders where it has them, harmless defaults where not. */
function callbackHandlers(responders: KernelResponders, answer: Answer) {
  let emitted = 0n;
  return {
    log: answer("log", (request: LogRequest) => {
      responders.log?.(request);
      return create(LogResultSchema);
    }),
    emit: answer("emit", async (request: EmitRequest) => {
      emitted += 1n;
      return create(
        EmitResultSchema,
        responders.emit ? await responders.emit(request) : { id: `event-${emitted}`, sequence: emitted },
      );
    }),
    runSession: answer("runSession", async (request: RunSessionRequest) => {
      if (!responders.runSession) throw new Error("this host's kernel has no runSession responder");
      return create(RunSessionResultSchema, await responders.runSession(request));
    }),
    countTokens: answer("countTokens", async (request: CountTokensRequest) =>
      create(
        CountTokensResultSchema,
        responders.countTokens ? await responders.countTokens(request) : { count: 0n, exact: false },
      ),
    ),
  };
}

/**
 * Resolves with the first recorded (or next) request of `method` that `match` accepts; each
 * recorded call wakes the `waiters`.
 */
function waitForRecorded<K extends CallbackName>(
  calls: RecordedCallbacks,
  waiters: Set<() => void>,
  method: K,
  match: (request: RequestOf<K>) => boolean,
  timeoutMs: number,
): Promise<RequestOf<K>> {
  return new Promise<RequestOf<K>>((resolve, reject) => {
    const check = () => {
      const found = (calls[method] as readonly RequestOf<K>[]).find(match);
      if (found === undefined) return false;
      waiters.delete(check);
      clearTimeout(timer);
      resolve(found);
      return true;
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(
        new Error(
          `no matching KernelCallbackService.${method} call within ${timeoutMs} ms (${calls[method].length} recorded)`,
        ),
      );
    }, timeoutMs);
    if (!check()) waiters.add(check);
  });
}
