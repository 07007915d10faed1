/**
 * An import as the tool surface GetSchema will serve, for `diff`'s comparison (cli/diff): each tool
 * with its classification as the proto's block declares it and its mapped schemas.
 */
import { create } from "@bufbuild/protobuf";
import {
  type GetSchemaResponse,
  GetSchemaResponseSchema,
} from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { contentResultSchema, type ImportedServer } from "harness-tool/mcp";
import { type JsonSchemaObject, toolDeclarationToWire } from "harness-tool/schema";
import { classificationFacts, defaultClassification } from "./write-proto.js";

/** The surface of `imported`, each tool classified by its block in `blocks` (else the default). */
export function surfaceOf(imported: ImportedServer, blocks: ReadonlyMap<string, string>): GetSchemaResponse {
  const tools = imported.tools.map((tool) => {
    const facts = classificationFacts(blocks.get(tool.name) ?? defaultClassification);
    return toolDeclarationToWire({
      name: tool.name,
      kind: facts.kind as "resource",
      risk: facts.risk as "high",
      description: tool.description,
      inputSchema: tool.inputSchema as unknown as JsonSchemaObject,
      outputSchema: (tool.outputSchema ?? contentResultSchema) as unknown as JsonSchemaObject,
      streaming: true,
      processBacked: false,
      ...(facts.kind === "interactive" ? {} : { concurrency: { safe: facts.safe, keyFields: [] } }),
      idempotent: facts.idempotent,
      terminatesTurn: false,
      preview: false,
    });
  });
  return create(GetSchemaResponseSchema, { tools });
}
