/**
 * The kernel the inspector plays for the provider's callbacks: Emit, RunSession and CountTokens
 * answered with canned replies the page can change, each call recorded with the reply it got.
 * (Log needs no reply; the records read it from the host client.)
 */
import { create, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import {
  CountTokensRequestSchema,
  CountTokensResultSchema,
  EmitRequestSchema,
  EmitResultSchema,
  RunSessionRequestSchema,
  RunSessionResultSchema,
  type CountTokensRequest,
  type EmitRequest,
  type RunSessionRequest,
} from "harness-tool/generated/pluggableharness/kernel/v1/kernel_pb.js";
import type { LaunchOptions } from "harness-tool/host";
import type { CannedRepliesView, Json } from "../protocol/page-protocol.js";
import type { PageChannel } from "./page-channel.js";
import type { ProviderRecords } from "./records.js";
import { InspectRequestError } from "./session-state.js";

/** The kernel's answers until the page changes them. */
export const defaultReplies: CannedRepliesView = {
  emit: {},
  runSession: {
    sessionId: "inspect-sub-session-1",
    status: "SESSION_STATUS_COMPLETED",
    finalMessage: {
      role: "ROLE_ASSISTANT",
      content: [{ text: { text: "A canned answer from harness-tool inspect." } }],
    },
  },
  countTokens: { count: "128", exact: false },
};

/** Emit's payload as text when it is UTF-8, else base64; the page shows and can Render either. */
function emitRequestJson(request: EmitRequest): Json {
  const json = toJson(EmitRequestSchema, request) as { [key: string]: Json };
  try {
    json["payloadText"] = new TextDecoder("utf-8", { fatal: true }).decode(request.payload);
  } catch {
    // binary: the base64 `payload` stays the only form
  }
  return json;
}

/** The canned replies and the callbacks' responders. */
export class KernelReplies {
  readonly #page: PageChannel;
  readonly #records: ProviderRecords;
  #replies: CannedRepliesView = defaultReplies;
  #emitted = 0n;

  constructor(page: PageChannel, records: ProviderRecords) {
    this.#page = page;
    this.#records = records;
  }

  /** The replies as they stand. */
  get current(): CannedRepliesView {
    return this.#replies;
  }

  /** Replaces the canned replies; each must be the protobuf JSON of its result message. */
  set(replies: Partial<CannedRepliesView>): CannedRepliesView {
    const next = { ...this.#replies, ...replies };
    const check = [
      ["emit", EmitResultSchema],
      ["runSession", RunSessionResultSchema],
      ["countTokens", CountTokensResultSchema],
    ] as const;
    for (const [name, schema] of check) {
      try {
        fromJson(schema, next[name] as JsonValue);
      } catch (error) {
        throw new InspectRequestError(`the ${name} reply is not a ${schema.typeName}: ${(error as Error).message}`);
      }
    }
    this.#replies = next;
    this.#page.publish({ kind: "replies", replies: next });
    return this.#page.json(next);
  }

  /** Emit: the canned reply, an empty id or sequence in it numbered as the kernel numbers events. */
  emit(request: EmitRequest) {
    this.#emitted += 1n;
    const canned = fromJson(EmitResultSchema, this.#replies.emit as JsonValue);
    const reply = create(EmitResultSchema, {
      id: canned.id || `event-${this.#emitted}`,
      sequence: canned.sequence || this.#emitted,
    });
    this.#records.record("emit", emitRequestJson(request), toJson(EmitResultSchema, reply) as Json);
    return reply;
  }

  runSession(request: RunSessionRequest) {
    return this.#answer("runSession", toJson(RunSessionRequestSchema, request) as Json, RunSessionResultSchema);
  }

  countTokens(request: CountTokensRequest) {
    return this.#answer("countTokens", toJson(CountTokensRequestSchema, request) as Json, CountTokensResultSchema);
  }

  #answer<S extends typeof RunSessionResultSchema | typeof CountTokensResultSchema>(
    method: "runSession" | "countTokens",
    request: Json,
    schema: S,
  ) {
    const reply = this.#replies[method];
    const message = fromJson(schema, reply as JsonValue);
    this.#records.record(method, request, reply);
    return message;
  }
}

/** The kernel callbacks a launched provider is given. */
export type Kernel = NonNullable<LaunchOptions["kernel"]>;

/**
 * The responders a provider is launched with, before the session (and its replies) exist: they read
 * the replies when a callback arrives, which is after the start in all but a provider's first moments.
 */
export function kernelResponders(replies: () => KernelReplies | undefined): Kernel {
  return {
    emit: (request) => replies()?.emit(request) ?? { id: "event-0", sequence: 0n },
    runSession: (request) => {
      const current = replies();
      if (!current) throw new Error("the inspector is still starting");
      return current.runSession(request);
    },
    countTokens: (request) => {
      const current = replies();
      if (!current) throw new Error("the inspector is still starting");
      return current.countTokens(request);
    },
  };
}
