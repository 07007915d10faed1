/**
 * An MCP tool's JSON Schema mapped into the kernel's common subset (runtime/schema), or the reasons
 * it cannot be. Only what the subset can say the same way is mapped: `integer` becomes `number`,
 * and keywords that only narrow what the server accepts (bounds, lengths, formats, patterns,
 * defaults) move into the description, where the subset's own advice puts them; the server still
 * enforces them. A shape the subset cannot express (unions, references, open maps, `null`, enums
 * of numbers) is a problem: the tool is reported and left out, never changed.
 */
import { checkToolSchemaDocument } from "../schema/schema-subset.js";

/** The result of mapping one schema. */
export type SchemaMapping =
  | { readonly ok: true; readonly schema: Record<string, unknown> }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Keywords that only document or narrow a value: said in the description instead. */
const describedKeywords = [
  "default",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "uniqueItems",
  "examples",
] as const;

/** Keywords dropped without a word: they say nothing a caller needs. */
const droppedKeywords = new Set(["$schema", "title", "$id", "$comment", "deprecated", "readOnly", "writeOnly"]);

const mappedTypes = new Set(["object", "string", "number", "integer", "boolean", "array"]);

function describe(node: Record<string, unknown>, type: unknown): string {
  const notes: string[] = [];
  if (type === "integer") notes.push("an integer");
  for (const key of describedKeywords) if (key in node) notes.push(`${key}: ${JSON.stringify(node[key])}`);
  const base = typeof node["description"] === "string" ? (node["description"] as string) : "";
  if (notes.length === 0) return base;
  return base === "" ? `(${notes.join("; ")})` : `${base} (${notes.join("; ")})`;
}

function mapObjectKeywords(
  node: Record<string, unknown>,
  path: string,
  out: Record<string, unknown>,
  problems: string[],
) {
  const extra = node["additionalProperties"];
  if (extra !== undefined && extra !== false)
    problems.push(`${path}: an open map (additionalProperties) has no form in the subset`);
  const properties = node["properties"];
  if (properties === undefined && path !== "" && extra !== false) {
    problems.push(`${path}: an object without properties is an open map, which has no form in the subset`);
    return;
  }
  const mapped: Record<string, unknown> = {};
  for (const [name, child] of Object.entries((properties ?? {}) as Record<string, unknown>))
    mapped[name] = mapNode(child, `${path}/properties/${name}`, problems);
  out["properties"] = mapped;
  if (Array.isArray(node["required"]) && node["required"].length > 0) out["required"] = node["required"];
}

function mapNode(value: unknown, path: string, problems: string[]): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(`${path || "/"}: not a schema object`);
    return {};
  }
  const node = value as Record<string, unknown>;
  const unions = ["anyOf", "oneOf", "allOf", "not", "$ref", "const", "if", "patternProperties"].filter(
    (key) => key in node,
  );
  for (const key of unions) problems.push(`${path || "/"}: \`${key}\` has no form in the subset`);
  if (unions.length > 0) return {};
  const type = node["type"];
  if (typeof type !== "string" || !mappedTypes.has(type)) {
    problems.push(`${path || "/"}: type ${JSON.stringify(type)} has no form in the subset`);
    return {};
  }
  const out: Record<string, unknown> = { type: type === "integer" ? "number" : type };
  const description = describe(node, type);
  if (description !== "") out["description"] = description;
  if ("enum" in node) {
    const values = node["enum"];
    if (type === "string" && Array.isArray(values) && values.every((v) => typeof v === "string")) out["enum"] = values;
    else problems.push(`${path || "/"}: an enum of anything but strings has no form in the subset`);
  }
  if (type === "array") out["items"] = mapNode(node["items"], `${path}/items`, problems);
  if (type === "object") mapObjectKeywords(node, path, out, problems);
  for (const key of Object.keys(node)) {
    const known =
      key in out ||
      key === "type" ||
      key === "description" ||
      key === "additionalProperties" ||
      key === "required" ||
      key === "enum";
    if (!known && !droppedKeywords.has(key) && !(describedKeywords as readonly string[]).includes(key))
      problems.push(`${path || "/"}: \`${key}\` has no form in the subset`);
  }
  return out;
}

/** Maps an MCP tool's inputSchema or outputSchema; the result is a valid tool schema of the subset. */
export function mapMcpSchema(schema: unknown): SchemaMapping {
  const problems: string[] = [];
  const mapped = mapNode(schema, "", problems);
  if (problems.length > 0) return { ok: false, problems: [...new Set(problems)] };
  const invalid = checkToolSchemaDocument(mapped);
  if (invalid.length > 0) return { ok: false, problems: invalid.map((p) => `${p.path || "/"}: ${p.message}`) };
  return { ok: true, schema: mapped as Record<string, unknown> };
}

/**
 * The result schema of a tool that declares no outputSchema: its content blocks, each flattened to
 * the fields the subset can carry (text; image and audio data with their MIME type; a resource's URI).
 */
export const contentResultSchema: Record<string, unknown> = {
  type: "object",
  description: "The MCP server's content blocks, in order.",
  properties: {
    content: {
      type: "array",
      items: {
        type: "object",
        properties: {
          type: { type: "string", description: "text, image, audio, resource_link or resource" },
          text: { type: "string", description: "A text block's text, or an embedded text resource's text." },
          data: { type: "string", description: "An image's or audio clip's base64 data, or a blob resource's." },
          mimeType: { type: "string", description: "The MIME type of data, or of the resource." },
          uri: { type: "string", description: "A resource's URI." },
          name: { type: "string", description: "A resource link's name." },
        },
        required: ["type"],
      },
    },
  },
  required: ["content"],
};
