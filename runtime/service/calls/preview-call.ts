/**
 * Preview: what Invoke(call) would do, without doing it. The handler gets a PreviewContext, which
 * has no way to emit events, call the kernel or spawn processes: side-effect-free by construction.
 *
 * seed: Preview — MAY be implemented (UNIMPLEMENTED when a tool did not declare it); MUST NOT
 * mutate anything.
 */
import { create } from "@bufbuild/protobuf";
import { RenderTreeSchema } from "../../generated/pluggableharness/render/v1/render_pb.js";
import {
  PreviewResponseSchema,
  type PreviewRequest,
  type PreviewResponse,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { GrpcCode, RpcStatusError } from "../../errors/rpc-status-error.js";
import { ToolError } from "../../errors/tool-error.js";
import type { PreviewContext, RenderTreeInit } from "../../provider/tool-context.js";
import { tooDeep, tooDeepError } from "./argument-depth.js";
import { wireError } from "../../errors/classify-error.js";
import { boundedMessage, clipText, quoteInput, reportViolations } from "../../errors/input-error-bounds.js";
import { callInfoOf } from "./invoke-in-flight.js";
import { resolveToolPath } from "./resolve-path.js";
import type { ServiceRuntime } from "./service-runtime.js";
import { unaryFailure } from "../../errors/unary-failure.js";
import { failureLog } from "./failure-log.js";
import { type LongTimeout, setLongTimeout } from "./long-timeout.js";

/**
 * Runs `work` with a signal that aborts after `timeoutMs` (if set); rejects with a `timeout`
 * ToolError when the work does not settle in time.
 */
export async function withDeadline<T>(
  timeoutMs: number | undefined,
  what: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: LongTimeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    if (timeoutMs === undefined) return;
    timer = setLongTimeout(() => {
      const error = new ToolError("timeout", `${what} did not finish within ${timeoutMs} ms`, { retryable: true });
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => work(controller.signal)), deadline]);
  } finally {
    timer?.clear();
  }
}

/** A handler's RenderTree as the wire message; a malformed tree is a provider bug. */
export function renderTreeFrom(init: RenderTreeInit, what: string) {
  try {
    return create(RenderTreeSchema, init);
  } catch (error) {
    throw new Error(`${what} returned something that is not a RenderTree: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Preview, as the service's door calls it. */
export async function runPreview(rt: ServiceRuntime, request: PreviewRequest): Promise<PreviewResponse> {
  const call = request.call;
  if (!call) throw new RpcStatusError(GrpcCode.INVALID_ARGUMENT, "PreviewRequest has no call");
  const entry = rt.tools.get(call.toolName);
  if (!entry) {
    throw new RpcStatusError(
      GrpcCode.NOT_FOUND,
      `provider ${rt.provider.name} has no tool ${quoteInput(call.toolName)}`,
      wireError("not_found", `no tool ${quoteInput(call.toolName)}`, {
        details: { tool_name: clipText(call.toolName) },
      }),
    );
  }
  const preview = entry.implementation.preview;
  // seed: Preview — absent means the kernel falls back to showing the raw arguments.
  if (!preview) throw new RpcStatusError(GrpcCode.UNIMPLEMENTED, `${entry.name} does not implement Preview`);
  const accepted = rt.accepted();
  if (!accepted) throw new RpcStatusError(GrpcCode.FAILED_PRECONDITION, `Preview of ${entry.name} before Configure`);
  const deep = tooDeep(call);
  if (deep) {
    const error = tooDeepError(`the arguments of ${entry.name}`, deep);
    throw new RpcStatusError(GrpcCode.INVALID_ARGUMENT, error.message, error);
  }
  const input = call.arguments ?? {};
  try {
    const violations = entry.implementation.validateInput(input);
    if (violations.length > 0) {
      const report = reportViolations(violations);
      const error = wireError(
        "invalid_arguments",
        boundedMessage(`the arguments of ${entry.name} do not match its input_schema: ${report.summary}`),
        {
          details: report.details,
        },
      );
      throw new RpcStatusError(GrpcCode.INVALID_ARGUMENT, error.message, error);
    }
    const info = callInfoOf(call);
    const boundary =
      accepted.roots === undefined
        ? { workingDirectory: info.workingDirectory }
        : { workingDirectory: info.workingDirectory, roots: accepted.roots };
    const tree = await withDeadline(entry.timeoutMs, `Preview of ${entry.name}`, (signal) => {
      // Only reading members: no emit, no kernel, no spawn. Frozen so nothing can be bolted on.
      const context: PreviewContext<unknown> = Object.freeze({
        signal,
        call: info,
        config: accepted.config,
        resolvePath: (target: string) => resolveToolPath(target, boundary),
      });
      return (preview as (input: unknown, context: PreviewContext<unknown>) => Promise<RenderTreeInit>)(input, context);
    });
    return create(PreviewResponseSchema, { preview: renderTreeFrom(tree, `Preview of ${entry.name}`) });
  } catch (error) {
    throw unaryFailure(error, {
      context: `Preview of ${entry.name} failed`,
      log: failureLog(rt.stderr, { tool: entry.name, call_id: call.id }),
    });
  }
}
