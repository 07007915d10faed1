/** What a provider's reference docs are made from: what it declares, an example call per tool, its Previews. */
import type { JsonObject } from "@bufbuild/protobuf";
import type { RenderTree } from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import type { GetSchemaResponse } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";

/** One tool's example call and where its arguments came from. */
export interface ExampleCall {
  readonly args: JsonObject;
  /** "examples": the author's examples file; "sample": the smallest valid call, as `check` makes it. */
  readonly from: "examples" | "sample";
}

/** Everything the generated pages say. */
export interface DocsInput {
  /** Describe's producer: name, version, source. */
  readonly producer: { readonly name: string; readonly version: string; readonly source: string };
  readonly schema: GetSchemaResponse;
  /** By tool name; every tool has one. */
  readonly examples: ReadonlyMap<string, ExampleCall>;
  /** By tool name: what Preview of the example call returned; a tool without Preview has none. */
  readonly previews: ReadonlyMap<string, RenderTree>;
}
