/**
 * What every part of the session shares: the provider process the calls go to (replaced by a
 * restart), the working directory and turn they name, the deadline `--timeout` puts on them, and how
 * a refused request or a failed unary call reads.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { status as grpcStatus } from "@grpc/grpc-js";
import { ProviderCallError, type LaunchedProvider } from "harness-tool/host";
import { categoryName } from "../../terminal/wire-names.js";
import type { Json, TreeAnswer } from "../protocol/page-protocol.js";

/** Calls and hook calls kept in the history; older ones are dropped. */
export const historyLimit = 100;

/** A request the inspector refuses before it reaches the provider (bad JSON, unknown call id...). */
export class InspectRequestError extends Error {
  override readonly name = "InspectRequestError";
}

/** The provider the session talks to now, and what each of its calls names. */
export class ProviderLink {
  /** The running provider; a restart replaces it. */
  launched: LaunchedProvider;
  /** CallContext.working_directory of calls that name none. */
  readonly workingDirectory: string;
  /** The Invokes sent so far: the turn id of the next one is one more. */
  turn = 0;
  readonly #callTimeoutMs: number | undefined;

  constructor(launched: LaunchedProvider, workingDirectory: string, callTimeoutMs: number | undefined) {
    this.launched = launched;
    this.workingDirectory = workingDirectory;
    this.#callTimeoutMs = callTimeoutMs;
  }

  /** The longest any call may take (`--timeout`), if one was given. */
  get callTimeoutMs(): number | undefined {
    return this.#callTimeoutMs;
  }

  /** A unary call's deadline: `usual`, or --timeout when that is shorter. */
  bound(usual: number): { timeoutMs: number } {
    return { timeoutMs: Math.min(usual, this.#callTimeoutMs ?? usual) };
  }

  /** The working directory a page's request names, else the session's. */
  workingDirectoryOf(requested: unknown): string {
    return typeof requested === "string" && requested !== "" ? requested : this.workingDirectory;
  }

  /** The CallContext of a call in turn `turnId`. */
  callContext(turnId: string, workingDirectory = this.workingDirectory) {
    return { sessionId: `inspect-session-${process.pid}`, turnId, workingDirectory };
  }
}

/** The gRPC status code's name: "OK", "CANCELLED", ... */
export function statusName(code: number): string {
  return (grpcStatus as unknown as Record<number, string>)[code] ?? `status ${code}`;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A failed unary call as the page shows it. */
export function failureAnswer(error: unknown): TreeAnswer {
  if (error instanceof ProviderCallError) {
    const te = error.toolError;
    return {
      ok: false,
      status: statusName(error.code),
      message: te?.message || error.details,
      ...(te ? { category: categoryName(te.category) } : {}),
      ...(te?.details ? { details: te.details as Json } : {}),
    };
  }
  return { ok: false, status: "UNKNOWN", message: error instanceof Error ? error.message : String(error) };
}
