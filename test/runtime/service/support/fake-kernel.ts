// An in-memory KernelClient that records every callback.
import { create } from "@bufbuild/protobuf";
import {
  CountTokensResultSchema,
  EmitResultSchema,
  RunSessionResultSchema,
  type CountTokensRequest,
  type EmitRequest,
  type LogRequest,
  type RunSessionRequest,
} from "../../../../generated/pluggableharness/kernel/v1/kernel_pb.js";
import type { KernelClient } from "../../../../runtime/service/kernel/kernel-client.js";

/** The fake and what it recorded. */
export interface FakeKernel extends KernelClient {
  readonly logs: LogRequest[];
  readonly emits: EmitRequest[];
  readonly sessions: RunSessionRequest[];
  readonly counts: CountTokensRequest[];
  /** When set, log() rejects with it. */
  failLog?: Error;
  /** When set, these callbacks reject with their error instead of answering. */
  failCallbacks?: { emit?: Error; runSession?: Error; countTokens?: Error };
}

/** A fake kernel; emit answers with increasing sequence numbers. */
export function fakeKernel(): FakeKernel {
  let sequence = 0n;
  const kernel: FakeKernel = {
    logs: [],
    emits: [],
    sessions: [],
    counts: [],
    async log(request) {
      if (kernel.failLog) throw kernel.failLog;
      kernel.logs.push(request);
    },
    async emit(request) {
      kernel.emits.push(request);
      if (kernel.failCallbacks?.emit) throw kernel.failCallbacks.emit;
      sequence += 1n;
      return create(EmitResultSchema, { id: `event-${sequence}`, sequence });
    },
    async runSession(request) {
      kernel.sessions.push(request);
      if (kernel.failCallbacks?.runSession) throw kernel.failCallbacks.runSession;
      return create(RunSessionResultSchema, { sessionId: "sub-1" });
    },
    async countTokens(request) {
      kernel.counts.push(request);
      if (kernel.failCallbacks?.countTokens) throw kernel.failCallbacks.countTokens;
      return create(CountTokensResultSchema, { count: 42n, exact: true });
    },
  };
  return kernel;
}
