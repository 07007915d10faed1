// Invalid builder uses. Each `@ts-expect-error` sits on the line above the property the compiler
// must reject; an error that moves elsewhere or disappears fails the type-check under TS 5.9 and
// TS 7 (test/typecheck.test.ts). builder-diagnostics.test.ts asserts the codes and messages.
import { defineProvider, defineTool, type JsonSchemaObject } from "../../../runtime/index.js";
import type { ToolKindName } from "../../../runtime/schema/index.js";
import {
  fileInputSchema,
  fileOutputSchema,
  noteInputSchema,
  noteOutputSchema,
  type FileInput,
  type FileOutput,
} from "./builder-fixtures.js";

const io = { inputSchema: fileInputSchema, outputSchema: fileOutputSchema } as const;
declare const someKind: ToolKindName;
declare const someFlag: boolean;

export const riskOnDataSource = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "data_source",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error a data_source is read_only
  risk: "high",
});

export const riskOnInteractive = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "interactive",
  description: "d",
  ...io,
  idempotent: true,
  // @ts-expect-error an interactive tool is read_only
  risk: "low",
});

export const readOnlyResource = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "resource",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error a resource is never read_only
  risk: "read_only",
});

// @ts-expect-error a resource must state its risk
export const resourceWithoutRisk = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "resource",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
});

// @ts-expect-error a resource must declare concurrency
export const resourceWithoutConcurrency = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "resource",
  risk: "low",
  description: "d",
  ...io,
  idempotent: true,
});

// @ts-expect-error a data_source must declare concurrency
export const dataSourceWithoutConcurrency = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  ...io,
  idempotent: true,
});

export const interactiveWithConcurrency = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "interactive",
  risk: "read_only",
  description: "d",
  ...io,
  idempotent: false,
  // @ts-expect-error interactive tools never declare concurrency
  concurrency: { safe: true },
});

export const keyFieldsWithoutSafe = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "resource",
  risk: "low",
  description: "d",
  ...io,
  idempotent: true,
  concurrency: {
    safe: false,
    // @ts-expect-error key fields need safe: true
    keyFields: ["path"],
  },
});

export const unknownKeyField = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "resource",
  risk: "low",
  description: "d",
  ...io,
  idempotent: true,
  concurrency: {
    safe: true,
    // @ts-expect-error "size" is not a key of FileInput
    keyFields: ["path", "size"],
  },
});

export const terminatesTurnOnDataSource = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error terminatesTurn is for resources
  terminatesTurn: true,
});

export const terminatesTurnOnInteractive = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "interactive",
  risk: "read_only",
  description: "d",
  ...io,
  idempotent: true,
  // @ts-expect-error terminatesTurn is for resources
  terminatesTurn: true,
});

// @ts-expect-error idempotent must be stated
export const idempotentLeftOut = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  ...io,
  concurrency: { safe: true },
});

export const widenedKind = defineTool<FileInput, FileOutput>()({
  name: "t",
  risk: "low",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error kind must be a literal
  kind: someKind,
});

export const widenedStreaming = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error streaming must be a literal
  streaming: someFlag,
});

export const widenedProcessBacked = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "resource",
  risk: "high",
  description: "d",
  ...io,
  concurrency: { safe: false },
  idempotent: false,
  // @ts-expect-error processBacked must be a literal
  processBacked: someFlag,
});

export const processBackedNotStreaming = defineTool<FileInput, FileOutput>()({
  name: "t",
  kind: "resource",
  risk: "high",
  description: "d",
  ...io,
  concurrency: { safe: false },
  idempotent: false,
  processBacked: true,
  // @ts-expect-error a process-backed tool streams
  streaming: false,
});

const plain = defineTool<FileInput, FileOutput>()({
  name: "plain",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
});
const streamingTool = defineTool<FileInput, FileOutput>()({
  name: "streaming",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  streaming: true,
});

export const contexts = defineProvider(
  { name: "p", version: "1", source: "github.com/acme/s", tools: { plain, streamingTool } },
  {
    plain: async (input, ctx) => {
      // @ts-expect-error a non-streaming tool's context cannot emit progress
      ctx.progress("no");
      // @ts-expect-error a non-streaming tool's context emits no output chunks
      ctx.output("stdout", "no");
      return { content: input.path };
    },
    streamingTool: async (input, ctx) => {
      await ctx.output("stdout", "any streaming tool streams its output");
      // @ts-expect-error only a process-backed tool's context emits exit_status
      ctx.exitStatus(0);
      return { content: input.path };
    },
  },
);

export const wrongOutput = defineProvider(
  { name: "p", version: "1", source: "github.com/acme/s", tools: { plain } },
  {
    // @ts-expect-error the result must match the tool's output type
    plain: async () => ({ contents: "typo" }),
  },
);

export const previewWithoutDeclaring = defineProvider(
  { name: "p", version: "1", source: "github.com/acme/s", tools: { plain } },
  { plain: async (input) => ({ content: input.path }) },
  {
    // @ts-expect-error plain does not declare preview
    plain: async () => ({}),
  },
);

// The form the plugin generates: the kind and streaming shape given as type arguments. The
// argument is still checked against that kind's spec.
export const explicitKindRisk = defineTool<FileInput, FileOutput>()<"data_source">({
  name: "t",
  kind: "data_source",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error an explicitly typed data_source is read_only too
  risk: "critical",
});

export const explicitKindMismatch = defineTool<FileInput, FileOutput>()<"data_source">({
  name: "t",
  risk: "read_only",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error the literal kind must match the type argument
  kind: "resource",
});

export const explicitPreviewUndeclared = defineTool<FileInput, FileOutput>()<"resource">({
  name: "t",
  kind: "resource",
  risk: "low",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error preview needs its type argument
  preview: true,
});

// What generated code declares: defineTool with every type given, the traits by name. The handler's context
// follows the traits as it follows defineTool's inference.
const generatedSpec = {
  name: "g",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  ...io,
  concurrency: { safe: true },
  idempotent: true,
} as const;
const generatedPlain = defineTool<
  FileInput,
  FileOutput,
  { kind: "data_source"; streaming: false; processBacked: false; preview: false }
>()(generatedSpec);
const generatedStreaming = defineTool<
  FileInput,
  FileOutput,
  { kind: "data_source"; streaming: true; processBacked: false; preview: false }
>()(generatedSpec);

export const generatedContexts = defineProvider(
  { name: "p", version: "1", source: "github.com/acme/s", tools: { generatedPlain, generatedStreaming } },
  {
    generatedPlain: async (input, ctx) => {
      // @ts-expect-error a generated non-streaming tool's context cannot emit progress
      ctx.progress("no");
      return { content: input.path };
    },
    // @ts-expect-error a generated tool's result must match its output type
    generatedStreaming: async (input, ctx) => {
      ctx.progress("yes");
      return { contents: input.path };
    },
  },
);

export const wrongTrait = defineTool<
  FileInput,
  FileOutput,
  // @ts-expect-error a trait is a literal of its own type
  { kind: "data_source"; streaming: "yes"; processBacked: false; preview: false }
>()(generatedSpec);

// The schema-first form: the types come from the literal schemas, so a handler that drifts from
// them is an error where it drifts, and the spec's rules are the explicit form's.
const readNote = defineTool({
  name: "read_note",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  inputSchema: noteInputSchema,
  outputSchema: noteOutputSchema,
  concurrency: { safe: true },
  idempotent: true,
});

export const schemaFirstInput = defineProvider(
  { name: "p", version: "1", source: "github.com/acme/s", tools: { readNote } },
  {
    readNote: async (input) => {
      // @ts-expect-error a schema-first input property has its schema's type
      const limit: string = input.limit ?? "all";
      // @ts-expect-error an optional schema-first input property may be undefined
      const first = input.tags.at(0);
      // @ts-expect-error a string enum is the union of its values
      const markdown = input.mode === "html";
      return { text: `${limit}${first}${markdown}`, lines: 1 };
    },
  },
);

export const schemaFirstOutput = defineProvider(
  { name: "p", version: "1", source: "github.com/acme/s", tools: { readNote } },
  {
    // @ts-expect-error a schema-first output field has its schema's type
    readNote: async (input) => ({ text: input.title, lines: "1" }),
  },
);

export const schemaFirstMissingOutput = defineProvider(
  { name: "p", version: "1", source: "github.com/acme/s", tools: { readNote } },
  {
    // @ts-expect-error a required schema-first output field must be returned
    readNote: async (input) => ({ text: input.title }),
  },
);

export const schemaFirstRisk = defineTool({
  name: "t",
  kind: "data_source",
  description: "d",
  inputSchema: noteInputSchema,
  outputSchema: noteOutputSchema,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error a schema-first data_source is read_only too
  risk: "high",
});

export const schemaFirstKeyField = defineTool({
  name: "t",
  kind: "resource",
  risk: "low",
  description: "d",
  inputSchema: noteInputSchema,
  outputSchema: noteOutputSchema,
  idempotent: true,
  concurrency: {
    safe: true,
    // @ts-expect-error "size" is not a property of the input schema
    keyFields: ["title", "size"],
  },
});

const widenedSchema: JsonSchemaObject = noteInputSchema;

export const schemaFirstWidened = defineTool({
  name: "t",
  kind: "data_source",
  risk: "read_only",
  description: "d",
  outputSchema: noteOutputSchema,
  concurrency: { safe: true },
  idempotent: true,
  // @ts-expect-error a schema-first tool needs a literal schema
  inputSchema: widenedSchema,
});
