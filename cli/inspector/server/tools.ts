/**
 * The provider's tools as the page lists them, and the two unary calls that draw a RenderTree:
 * Preview of a call and Render of an emitted payload. Whether a tool has a Preview is asked once
 * Configure is accepted, and the page offers Preview only where one is.
 */
import { randomUUID } from "node:crypto";
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { status as grpcStatus } from "@grpc/grpc-js";
import { RenderTreeSchema, type RenderTree } from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import type { ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { jsonSchemaFromWire, toolSchemaFlagValues } from "harness-tool/schema";
import { ProviderCallError } from "harness-tool/host";
import { concurrencyText, kindName, riskName, timeoutText } from "../../terminal/wire-names.js";
import type { InvokeRequestBody, Json, JsonSchemaView, ToolView, TreeAnswer } from "../protocol/page-protocol.js";
import type { PageChannel } from "./page-channel.js";
import { failureAnswer, InspectRequestError, isJsonObject, type ProviderLink } from "./session-state.js";

/** The arguments a Preview probe sends: no tool has this property, so a validating provider refuses them unrun. */
const previewProbeArguments = { "harness-tool inspect: does this tool have a Preview?": true };

function toolView(tool: ToolSchema, preview?: boolean): ToolView {
  return {
    name: tool.name,
    description: tool.description,
    kind: kindName(tool.kind),
    risk: riskName(tool.risk),
    ...toolSchemaFlagValues(tool),
    concurrency: concurrencyText(tool),
    timeout: timeoutText(tool),
    inputSchema: (tool.inputSchema ? jsonSchemaFromWire(tool.inputSchema) : {}) as JsonSchemaView,
    outputSchema: (tool.outputSchema ? jsonSchemaFromWire(tool.outputSchema) : {}) as JsonSchemaView,
    ...(preview !== undefined ? { preview } : {}),
  };
}

function treeAnswer(tree: RenderTree | undefined, started: number): TreeAnswer {
  return {
    ok: true,
    tree: (tree ? toJson(RenderTreeSchema, tree) : {}) as { root?: Json },
    durationMs: Math.round(performance.now() - started),
  };
}

/** The tools of the provider as it runs now, with what is known of their Preview. */
export class ToolList {
  readonly #link: ProviderLink;
  readonly #page: PageChannel;
  #tools: ToolView[] = [];
  readonly #schemas = new Map<string, ToolSchema>();

  constructor(link: ProviderLink, page: PageChannel, tools: readonly ToolSchema[]) {
    this.#link = link;
    this.#page = page;
    this.set(tools);
  }

  /** The tools of a (re)loaded provider, their Preview not yet known. */
  set(tools: readonly ToolSchema[]): void {
    this.#tools = tools.map((t) => toolView(t));
    this.#schemas.clear();
    for (const t of tools) this.#schemas.set(t.name, t);
  }

  /** The tools as the page lists them. */
  get views(): readonly ToolView[] {
    return this.#tools;
  }

  /** A tool's wire schema (its output schema checks a result). */
  schema(name: string): ToolSchema | undefined {
    return this.#schemas.get(name);
  }

  /**
   * Whether each tool answers Preview, asked once Configure is accepted: a Preview of arguments no
   * tool accepts is refused unrun (Preview never executes a call anyway), UNIMPLEMENTED when the
   * tool has none. The wire's ToolSchema does not say, and the page offers Preview only where one is.
   */
  async probePreviews(): Promise<void> {
    const launched = this.#link.launched;
    const unknown = this.#tools.filter((t) => t.preview === undefined);
    await Promise.all(
      unknown.map(async (tool) => {
        try {
          await launched.preview(
            {
              id: `inspect-probe-${randomUUID()}`,
              toolName: tool.name,
              arguments: previewProbeArguments,
              callContext: this.#link.callContext("0"),
            },
            { timeoutMs: 5_000 },
          );
          this.#markPreview(tool.name, true);
        } catch (error) {
          if (!(error instanceof ProviderCallError)) return;
          if (error.code === grpcStatus.UNIMPLEMENTED) this.#markPreview(tool.name, false);
          else if (error.code !== grpcStatus.FAILED_PRECONDITION && error.code !== grpcStatus.DEADLINE_EXCEEDED)
            this.#markPreview(tool.name, true);
        }
      }),
    );
  }

  /** Preview of a call: the RenderTree, or why not. */
  async preview(body: InvokeRequestBody): Promise<TreeAnswer> {
    if (!isJsonObject(body.args)) throw new InspectRequestError("args must be a JSON object");
    const workingDirectory = this.#link.workingDirectoryOf(body.workingDirectory);
    const started = performance.now();
    let answer: TreeAnswer;
    try {
      const response = await this.#link.launched.preview(
        {
          id: `inspect-preview-${randomUUID()}`,
          toolName: body.tool,
          arguments: body.args as JsonObject,
          callContext: this.#link.callContext(String(this.#link.turn + 1), workingDirectory),
        },
        this.#link.bound(30_000),
      );
      answer = treeAnswer(response.preview, started);
      this.#markPreview(body.tool, true);
    } catch (error) {
      answer = failureAnswer(error);
      if (error instanceof ProviderCallError && error.code === grpcStatus.UNIMPLEMENTED)
        this.#markPreview(body.tool, false);
    }
    return this.#page.json(answer);
  }

  /** Render of an emitted payload (text or base64) under a schema_version. */
  async render(body: { schemaVersion: string; payload: string; encoding?: "text" | "base64" }): Promise<TreeAnswer> {
    if (typeof body.schemaVersion !== "string" || typeof body.payload !== "string")
      throw new InspectRequestError("schemaVersion and payload must be strings");
    const payload =
      body.encoding === "base64"
        ? new Uint8Array(Buffer.from(body.payload, "base64"))
        : new TextEncoder().encode(body.payload);
    const started = performance.now();
    let answer: TreeAnswer;
    try {
      answer = treeAnswer(
        (await this.#link.launched.render(payload, body.schemaVersion, this.#link.bound(30_000))).tree,
        started,
      );
    } catch (error) {
      answer = failureAnswer(error);
    }
    return this.#page.json(answer);
  }

  #markPreview(name: string, preview: boolean): void {
    const at = this.#tools.findIndex((t) => t.name === name);
    const schema = this.#schemas.get(name);
    if (at < 0 || !schema || this.#tools[at]?.preview === preview) return;
    const tool = toolView(schema, preview);
    this.#tools[at] = tool;
    this.#page.publish({ kind: "tool", tool });
  }
}
