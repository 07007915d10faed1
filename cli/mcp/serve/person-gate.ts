/**
 * What reaches the person over MCP elicitation: the plan/apply gate of a resource call (its Preview
 * shown, the call run only when the person accepts) and the question of an interactive tool (its
 * Preview shown, the person's answer, in the shape of the tool's output schema, is the result, as
 * the kernel's frontend answers an interactive call). A client that cannot elicit gets an error
 * result that says so; nothing runs unconfirmed.
 */
import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ElicitRequestFormParams } from "@modelcontextprotocol/sdk/types.js";
import { RenderTreeSchema } from "harness-tool/generated/pluggableharness/render/v1/render_pb.js";
import type { ToolSchema } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import type { LaunchedProvider } from "harness-tool/host";
import { jsonSchemaFromWire, validateValue, type JsonSchema } from "harness-tool/schema";

/** Keys of a RenderTree's JSON whose strings are not shown text. */
const hiddenKeys = new Set(["language", "url", "id", "op", "region", "toolName", "provider", "sessionId"]);

/** The text leaves of a RenderTree's JSON, in order: what a text-only client can show of a Preview. */
export function renderTreeText(tree: JsonValue, key = ""): string[] {
  if (typeof tree === "string") return hiddenKeys.has(key) ? [] : [tree];
  if (Array.isArray(tree)) return tree.flatMap((item) => renderTreeText(item, key));
  if (tree !== null && typeof tree === "object") return Object.entries(tree).flatMap(([k, v]) => renderTreeText(v, k));
  return [];
}

/** The call's Preview as text, or its arguments when the provider gives none (no Preview, or it failed). */
export async function previewText(
  launched: LaunchedProvider,
  call: { readonly id: string; readonly toolName: string; readonly arguments: JsonObject },
  timeoutMs: number,
): Promise<string> {
  try {
    const response = await launched.preview(call, { timeoutMs });
    const text = response.preview ? renderTreeText(toJson(RenderTreeSchema, response.preview)).join("\n") : "";
    if (text.trim() !== "") return text;
  } catch {
    // A provider without a Preview for this tool: the arguments are what the person judges.
  }
  return `arguments: ${JSON.stringify(call.arguments, null, 2)}`;
}

/** Why a call did not run, as an error result's category and message. */
export interface GateRefusal {
  readonly category: "permission_denied" | "invalid_arguments" | "cancelled";
  readonly message: string;
}

/** True when the client declared the elicitation capability (form mode). */
export function canElicit(server: Server): boolean {
  return server.getClientCapabilities()?.elicitation !== undefined;
}

/**
 * The plan/apply gate: shows `preview` and resolves to undefined when the person accepts, else to
 * why the call was not applied.
 */
export async function confirmResourceCall(
  server: Server,
  tool: ToolSchema,
  preview: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<GateRefusal | undefined> {
  if (!canElicit(server))
    return {
      category: "permission_denied",
      message: `${tool.name} changes things and needs the person's confirmation, but this MCP client does not support elicitation (use a client that does, or serve without --confirm resources)`,
    };
  const answer = await server.elicitInput(
    { message: `Apply ${tool.name}?\n\n${preview}`, requestedSchema: { type: "object", properties: {} } },
    { signal, timeout: timeoutMs },
  );
  if (answer.action === "accept") return undefined;
  return { category: "permission_denied", message: `${tool.name} was not applied: the person chose ${answer.action}` };
}

/** The output schema as elicitation's flat form, or undefined when it has fields a form cannot ask (objects, arrays). */
function formSchema(tool: ToolSchema): ElicitRequestFormParams["requestedSchema"] | undefined {
  const doc = tool.outputSchema ? jsonSchemaFromWire(tool.outputSchema) : { properties: {} };
  const properties = (doc["properties"] ?? {}) as Record<string, Record<string, unknown>>;
  const flat = Object.values(properties).every((p) => ["string", "number", "boolean"].includes(String(p["type"])));
  if (!flat) return undefined;
  return {
    type: "object",
    properties: properties as ElicitRequestFormParams["requestedSchema"]["properties"],
    ...(Array.isArray(doc["required"]) ? { required: doc["required"] as string[] } : {}),
  };
}

/** An interactive call: the person's answer as the result payload, or why there is none. */
export async function askPerson(
  server: Server,
  tool: ToolSchema,
  preview: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ readonly answer: JsonObject } | { readonly refusal: GateRefusal }> {
  if (!canElicit(server))
    return {
      refusal: {
        category: "permission_denied",
        message: `${tool.name} asks the person a question, but this MCP client does not support elicitation (use a client that does)`,
      },
    };
  const requestedSchema = formSchema(tool);
  if (!requestedSchema)
    return {
      refusal: {
        category: "invalid_arguments",
        message: `${tool.name}'s output schema has nested fields an elicitation form cannot ask for`,
      },
    };
  const reply = await server.elicitInput({ message: preview, requestedSchema }, { signal, timeout: timeoutMs });
  if (reply.action !== "accept")
    return { refusal: { category: "cancelled", message: `the person did not answer ${tool.name} (${reply.action})` } };
  const answer = (reply.content ?? {}) as JsonObject;
  const schema = (tool.outputSchema
    ? jsonSchemaFromWire(tool.outputSchema)
    : { type: "object" }) as unknown as JsonSchema;
  const violations = validateValue(schema, answer);
  if (violations.length > 0)
    return {
      refusal: {
        category: "invalid_arguments",
        message: `the answer does not fit ${tool.name}'s output: ${violations.map((v) => `${v.path || "/"} ${v.message}`).join("; ")}`,
      },
    };
  return { answer };
}
