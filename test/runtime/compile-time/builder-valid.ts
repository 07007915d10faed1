// Valid builder uses: this file must type-check under TS 5.9 and TS 7 (test/typecheck.test.ts).
import { defineProvider, defineTool, type RenderTreeInit, type ValueOfSchema } from "../../../runtime/index.js";
import {
  fileInputSchema,
  fileOutputSchema,
  noteInputSchema,
  noteOutputSchema,
  type FileInput,
  type FileOutput,
} from "./builder-fixtures.js";

const common = { inputSchema: fileInputSchema, outputSchema: fileOutputSchema } as const;

export const readFile = defineTool<FileInput, FileOutput>()({
  name: "read_file",
  kind: "data_source",
  risk: "read_only",
  description: "Reads a file.",
  ...common,
  concurrency: { safe: true },
  idempotent: true,
  defaultTimeoutMs: 10_000,
});

export const writeFile = defineTool<FileInput, FileOutput>()({
  name: "write_file",
  kind: "resource",
  risk: "moderate",
  description: "Writes a file.",
  ...common,
  concurrency: { safe: true, keyFields: ["path"] },
  idempotent: true,
  preview: true,
});

export const bash = defineTool<FileInput, FileOutput>()({
  name: "bash",
  kind: "resource",
  risk: "high",
  description: "Runs a command.",
  ...common,
  concurrency: { safe: false },
  idempotent: false,
  processBacked: true,
  terminatesTurn: false,
});

export const search = defineTool<FileInput, FileOutput>()({
  name: "search",
  kind: "data_source",
  risk: "read_only",
  description: "Searches.",
  ...common,
  concurrency: { safe: true },
  idempotent: true,
  streaming: true,
});

export const askUser = defineTool<FileInput, FileOutput>()({
  name: "ask_user",
  kind: "interactive",
  risk: "read_only",
  description: "Asks the user.",
  ...common,
  idempotent: false,
});

export const finish = defineTool<FileInput, FileOutput>()({
  name: "finish",
  kind: "resource",
  risk: "low",
  description: "Ends the turn.",
  ...common,
  concurrency: { safe: true },
  idempotent: true,
  terminatesTurn: true,
});

const tree: RenderTreeInit = { root: { node: { case: "text", value: { content: "would write" } } } };

export const provider = defineProvider(
  {
    name: "corpus",
    version: "1.0.0",
    source: "github.com/acme/corpus",
    tools: { readFile, writeFile, bash, search, askUser, finish },
  },
  {
    readFile: async (input, ctx) => {
      ctx.signal.throwIfAborted();
      return { content: ctx.resolvePath(input.path) };
    },
    writeFile: async (input) => ({ content: input.path }),
    bash: async (input, ctx) => {
      ctx.progress("starting", 0);
      const exit = await ctx.spawn("/bin/sh", ["-c", input.path]);
      ctx.output("stderr", `exit ${exit.exitCode}`);
      return { content: String(exit.exitCode) };
    },
    search: async (input, ctx) => {
      ctx.partialResult({ seen: 1 });
      return { content: input.path };
    },
    askUser: async (input, ctx) => {
      ctx.log.info("asking", { path: input.path });
      return { content: "yes" };
    },
    finish: async () => ({ content: "done" }),
  },
  { writeFile: async () => tree },
);

// The schema-first form: the literal schemas give the handlers their types.
export const readNote = defineTool({
  name: "read_note",
  kind: "data_source",
  risk: "read_only",
  description: "Reads a note.",
  inputSchema: noteInputSchema,
  outputSchema: noteOutputSchema,
  concurrency: { safe: true, keyFields: ["title"] },
  idempotent: true,
});

export const appendNote = defineTool({
  name: "append_note",
  kind: "resource",
  risk: "low",
  description: "Appends to a note.",
  inputSchema: {
    type: "object",
    properties: { title: { type: "string" }, text: { type: "string" } },
    required: ["title", "text"],
  },
  outputSchema: { type: "object", properties: { lines: { type: "number" } }, required: ["lines"] },
  concurrency: { safe: true, keyFields: ["title"] },
  idempotent: false,
  streaming: true,
  preview: true,
});

export const notes = defineProvider(
  { name: "notes", version: "1.0.0", source: "github.com/acme/notes", tools: { readNote, appendNote } },
  {
    readNote: async (input) => {
      const title: string = input.title;
      const mode: "plain" | "markdown" | undefined = input.mode;
      const tags: string[] = input.tags ?? [];
      const text = `${title} ${mode ?? "plain"} ${tags.join(",")}`.slice(0, input.limit ?? 100);
      return { text, lines: 1, sections: [{ heading: title }] };
    },
    appendNote: async (input, ctx) => {
      ctx.progress("appending");
      return { lines: input.text.split("\n").length };
    },
  },
  { appendNote: async () => tree },
);

// The mapping itself, pinned: each side must be exactly the other (optional keys under
// exactOptionalPropertyTypes, enums as unions, nested objects and arrays).
type Exactly<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export const noteInputType: Exactly<
  ValueOfSchema<typeof noteInputSchema>,
  { title: string; mode?: "plain" | "markdown"; limit?: number; tags?: string[] }
> = true;
export const noteOutputType: Exactly<
  ValueOfSchema<typeof noteOutputSchema>,
  { text: string; lines: number; truncated?: boolean; sections?: { heading: string }[] }
> = true;
const emptySchema = { type: "object", properties: {} } as const;
export const emptyObjectType: Exactly<ValueOfSchema<typeof emptySchema>, Record<string, never>> = true;
