/**
 * TypeScript types from JSON Schema through json-schema-to-typescript, run concurrently (its
 * `compile` is async, which is why the plugin builds its model before protoplugin's synchronous
 * emit). Closed types (`additionalProperties: false`), no prettier (`format: false`: several times
 * faster), then indented here so the output reads like hand-written code.
 */
import { compile, type Options } from "json-schema-to-typescript";
import type { JSONSchema4 } from "json-schema";
import type { TypeScriptSchema } from "./shape-to-json-schema.js";

/** One named type to compile. The name must be a plain identifier (a dot would truncate it). */
export interface TypeRequest {
  readonly name: string;
  readonly schema: TypeScriptSchema;
}

const options: Partial<Options> = {
  format: false,
  additionalProperties: false,
  bannerComment: "",
  declareExternallyReferenced: false,
  unknownAny: true,
};

/** Compiles every request concurrently; the result maps each name to its declaration text. */
export async function compileTypes(requests: readonly TypeRequest[]): Promise<Map<string, string>> {
  const compiled = await Promise.all(
    requests.map(async ({ name, schema }) => {
      // json-schema-to-typescript annotates the schema it is given; give it a copy.
      const text = await compile(structuredClone(schema) as JSONSchema4, name, options);
      return [name, tidyDeclaration(text)] as const;
    }),
  );
  return new Map(compiled);
}

/**
 * Indents json-schema-to-typescript's unformatted output by brace depth, ends members with `;`,
 * writes one-line JSDoc as `/** text *\/`, empty bodies as `{}`, and unwraps a property type that
 * is nothing but a parenthesized union of string literals.
 */
export function tidyDeclaration(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let comment: string[] | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (comment !== undefined) {
      if (line.startsWith("*/")) {
        out.push(...formatComment(comment, "  ".repeat(depth)));
        comment = undefined;
      } else comment.push(line.replace(/^\* ?/, ""));
      continue;
    }
    if (line === "") continue;
    if (line.startsWith("/**")) {
      comment = [];
      continue;
    }
    if (line.startsWith("}")) {
      depth = Math.max(0, depth - 1);
      const end = depth > 0 ? `${line};` : line;
      const last = out[out.length - 1];
      if (last !== undefined && last.endsWith("{")) out[out.length - 1] = `${last}${end}`;
      else out.push(`${"  ".repeat(depth)}${end}`);
      continue;
    }
    const member = unwrapUnion(line.replace(/^\[k: string\]:/, "[key: string]:"));
    out.push(`${"  ".repeat(depth)}${member}${depth > 0 && !line.endsWith("{") ? ";" : ""}`);
    if (line.endsWith("{")) depth++;
  }
  return out.join("\n");
}

function formatComment(lines: readonly string[], pad: string): string[] {
  while (lines.length > 0 && lines[lines.length - 1] === "") lines = lines.slice(0, -1);
  if (lines.length === 1) return [`${pad}/** ${lines[0]} */`];
  return [`${pad}/**`, ...lines.map((l) => (l === "" ? `${pad} *` : `${pad} * ${l}`)), `${pad} */`];
}

const literalUnion = /^(.*?\??: )\(("(?:[^"\\]|\\.)*"(?: \| "(?:[^"\\]|\\.)*")*)\)$/;

function unwrapUnion(line: string): string {
  const match = literalUnion.exec(line);
  return match ? `${match[1]}${match[2]}` : line;
}
