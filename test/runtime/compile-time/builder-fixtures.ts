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
