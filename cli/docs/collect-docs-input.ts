/**
 * What the docs say, asked of a launched and configured provider: Describe, GetSchema, an example
 * call per tool (the author's examples file, else the smallest valid call `check` makes), and
 * Preview of each example call. Preview runs in a fresh working directory, written
 * `[working directory]` in the pages, so they name no path of this machine.
 */
import { fromJsonString, type JsonObject, toJsonString } from "@bufbuild/protobuf";
import { type LaunchedProvider, ProviderCallError } from "harness-tool/host";
import { type RenderTree, RenderTreeSchema } from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import type { GetSchemaResponse } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { isToolSchemaDocument, jsonSchemaFromWire } from "harness-tool/schema";
import { argumentsEntry, argumentsFileProblems } from "../check/arguments-file.js";
import { sampleValue } from "../check/sample-arguments.js";
import { UsageError } from "../terminal/usage-error.js";
import type { DocsInput, ExampleCall } from "./docs-input.js";

/** gRPC's UNIMPLEMENTED: the tool has no Preview. */
const unimplemented = 12;

/** How the collection is bounded and where its calls run. */
export interface CollectOptions {
  /** The author's examples (arguments by tool name, as `check --args-file` takes them), and the flag that gave them. */
  readonly examples?: { readonly file: string; readonly args: { readonly [tool: string]: JsonObject } } | undefined;
  /** The working directory of the Preview calls, replaced by `[working directory]` in what they return. */
  readonly workingDirectory: string;
  /** Each call's deadline, in milliseconds. */
  readonly callTimeoutMs: () => number;
  /** Called with the stage, for the command's deadline to name. */
  readonly enter: (stage: string) => void;
}

/** Each tool's example call; an examples file that names a tool not there or breaks a schema is refused. */
function exampleCalls(schema: GetSchemaResponse, options: CollectOptions): Map<string, ExampleCall> {
  const given = options.examples;
  if (given) {
    const problems = argumentsFileProblems(schema, given.args);
    if (problems.length > 0) throw new UsageError(`--examples ${given.file}: ${problems.join("; ")}`);
  }
  const calls = new Map<string, ExampleCall>();
  for (const tool of schema.tools) {
    const entry = argumentsEntry(given?.args, tool.name);
    if (entry) {
      calls.set(tool.name, { args: entry.args, from: "examples" });
      continue;
    }
    const document = tool.inputSchema ? jsonSchemaFromWire(tool.inputSchema) : {};
    const args = isToolSchemaDocument(document) ? (sampleValue(document) as JsonObject) : {};
    calls.set(tool.name, { args, from: "sample" });
  }
  return calls;
}

/** The Preview of one call, with this run's working directory written as a placeholder; undefined when the tool has none. */
async function previewOf(
  launched: LaunchedProvider,
  tool: string,
  args: JsonObject,
  options: CollectOptions,
): Promise<RenderTree | undefined> {
  options.enter(`Preview of ${tool}`);
  try {
    const answer = await launched.preview(
      {
        id: `docs-${tool}`,
        toolName: tool,
        arguments: args,
        callContext: { sessionId: "harness-tool-docs", turnId: "1", workingDirectory: options.workingDirectory },
      },
      { timeoutMs: options.callTimeoutMs() },
    );
    if (!answer.preview) return undefined;
    const json = toJsonString(RenderTreeSchema, answer.preview)
      .split(options.workingDirectory)
      .join("[working directory]");
    return fromJsonString(RenderTreeSchema, json);
  } catch (e) {
    if (e instanceof ProviderCallError && e.code === unimplemented) return undefined;
    const why = e instanceof ProviderCallError ? (e.toolError?.message ?? e.details) : String(e);
    throw new Error(
      `Preview of ${tool}'s example call failed: ${why} (fix the preview handler, or give arguments it takes with --examples)`,
    );
  }
}

/** Everything the docs say, from a provider launched and configured. */
export async function collectDocsInput(launched: LaunchedProvider, options: CollectOptions): Promise<DocsInput> {
  options.enter("Describe");
  const described = await launched.describe({ timeoutMs: options.callTimeoutMs() });
  options.enter("GetSchema");
  const schema = await launched.getSchema({ timeoutMs: options.callTimeoutMs() });
  const examples = exampleCalls(schema, options);
  const previews = new Map<string, RenderTree>();
  for (const tool of schema.tools) {
    const tree = await previewOf(launched, tool.name, examples.get(tool.name)?.args ?? {}, options);
    if (tree) previews.set(tool.name, tree);
  }
  const producer = described.producer;
  return {
    producer: { name: producer?.name ?? "", version: producer?.version ?? "", source: producer?.source ?? "" },
    schema,
    examples,
    previews,
  };
}
