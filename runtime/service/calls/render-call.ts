/**
 * Render: turns a payload this provider emitted into a RenderTree, dispatching on the payload's
 * schema_version to the provider's renderer for that version.
 *
 * seed: Render — RenderRequest.schema_version names the version of the plugin's own payload
 * schema; not implemented means the kernel falls back to its generic default.
 */
import { create } from "@bufbuild/protobuf";
import {
  RenderResponseSchema,
  type RenderRequest,
  type RenderResponse,
} from "../../generated/pluggableharness/tool/v1/tool_pb.js";
import { GrpcCode, RpcStatusError } from "../../errors/rpc-status-error.js";
import type { RenderContext } from "../../provider/tool-context.js";
import { quoteInput } from "../../errors/input-error-bounds.js";
import { renderTreeFrom, withDeadline } from "./preview-call.js";
import type { ServiceRuntime } from "./service-runtime.js";
import { unaryFailure } from "../../errors/unary-failure.js";
import { failureLog } from "./failure-log.js";

/** How long a renderer may take; Render has no declared timeout of its own. */
export const renderTimeoutMs = 10_000;

/** Render, as the service's door calls it. */
export async function runRender(rt: ServiceRuntime, request: RenderRequest): Promise<RenderResponse> {
  const version = request.schemaVersion;
  const renderers = rt.provider.renderers;
  const renderer = renderers && Object.hasOwn(renderers, version) ? renderers[version] : undefined;
  if (!renderer) {
    const known = Object.keys(renderers ?? {});
    throw new RpcStatusError(
      GrpcCode.UNIMPLEMENTED,
      known.length === 0
        ? `provider ${rt.provider.name} does not implement Render`
        : `provider ${rt.provider.name} has no renderer for schema_version ${quoteInput(version)} (it renders ${known.map((k) => JSON.stringify(k)).join(", ")})`,
    );
  }
  const accepted = rt.accepted();
  if (!accepted) throw new RpcStatusError(GrpcCode.FAILED_PRECONDITION, "Render before Configure");
  try {
    const tree = await withDeadline(
      renderTimeoutMs,
      `Render of schema_version ${JSON.stringify(version)}`,
      (signal) => {
        const context: RenderContext<unknown> = Object.freeze({ signal, config: accepted.config });
        return renderer(request.payload, context);
      },
    );
    return create(RenderResponseSchema, { tree: renderTreeFrom(tree, `the renderer for ${JSON.stringify(version)}`) });
  } catch (error) {
    throw unaryFailure(error, {
      context: `Render of schema_version ${JSON.stringify(version)} failed`,
      log: failureLog(rt.stderr),
    });
  }
}
