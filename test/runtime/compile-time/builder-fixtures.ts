// Shared inputs of the compile-time corpus: a tool input type and schemas to declare tools with.
import type { JsonSchemaObject } from "../../../runtime/index.js";

/** The input of the corpus's tools. */
export interface FileInput {
  path: string;
  limit?: number;
}

/** The output of the corpus's tools. */
export interface FileOutput {
  content: string;
}

/** FileInput's schema. */
export const fileInputSchema: JsonSchemaObject = {
  type: "object",
  properties: { path: { type: "string" }, limit: { type: "number" } },
  required: ["path"],
};

/** FileOutput's schema. */
export const fileOutputSchema: JsonSchemaObject = {
  type: "object",
  properties: { content: { type: "string" } },
  required: ["content"],
};

/** A literal input schema for the schema-first form: `as const` keeps its literals for the compiler. */
export const noteInputSchema = {
  type: "object",
  properties: {
    title: { type: "string", description: "The note's title." },
    mode: { type: "string", enum: ["plain", "markdown"] },
    limit: { type: "number" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["title"],
} as const;

/** A literal output schema for the schema-first form. */
export const noteOutputSchema = {
  type: "object",
  properties: {
    text: { type: "string" },
    lines: { type: "number" },
    truncated: { type: "boolean" },
    sections: {
      type: "array",
      items: { type: "object", properties: { heading: { type: "string" } }, required: ["heading"] },
    },
  },
  required: ["text", "lines"],
} as const;
