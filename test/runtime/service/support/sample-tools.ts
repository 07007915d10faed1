// Hand-built tools and providers for the service tests.
import { defineProvider, defineTool, type ProviderDefinition, type ToolDefinition } from "../../../../runtime/index.js";
import type { JsonSchemaObject } from "../../../../runtime/index.js";

/** { text: string } */
export const textSchema: JsonSchemaObject = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
};
/** { path: string } */
export const pathSchema: JsonSchemaObject = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
};
/** {} */
export const emptySchema: JsonSchemaObject = { type: "object", properties: {} };

/** A data source echoing its text, with a timeout. */
export const echo = defineTool<{ text: string }, { text: string }>()({
  name: "echo",
  kind: "data_source",
  risk: "read_only",
  description: "Echoes its text.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: true,
  defaultTimeoutMs: 5_000,
});

/** A streaming data source. */
export const stream = defineTool<{ text: string }, { text: string }>()({
  name: "stream",
  kind: "data_source",
  risk: "read_only",
  description: "Streams progress, then echoes.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: true,
  streaming: true,
  defaultTimeoutMs: 5_000,
});

/** A process-backed resource. */
export const exec = defineTool<{ text: string }, { text: string }>()({
  name: "exec",
  kind: "resource",
  risk: "high",
  description: "Runs a process.",
  inputSchema: textSchema,
  outputSchema: textSchema,
  concurrency: { safe: true },
  idempotent: false,
  processBacked: true,
  defaultTimeoutMs: 5_000,
});

/** A data-source tool with these options, for one-off tests. */
export function dataTool(
  name: string,
  extra: { defaultTimeoutMs?: number; streaming?: boolean } = {},
): ToolDefinition<{ text: string }, { text: string }, "data_source", boolean, false> {
  return defineTool<{ text: string }, { text: string }>()({
    name,
    kind: "data_source",
    risk: "read_only",
    description: `The ${name} tool.`,
    inputSchema: textSchema,
    outputSchema: textSchema,
    concurrency: { safe: true },
    idempotent: true,
    defaultTimeoutMs: extra.defaultTimeoutMs ?? 5_000,
    ...(extra.streaming ? { streaming: true as const } : {}),
  }) as ToolDefinition<{ text: string }, { text: string }, "data_source", boolean, false>;
}

/** A provider with one tool and an untyped handler (as a JavaScript author would write it). */
export function providerWith(
  tool: ToolDefinition<unknown, unknown>,
  handler: (input: any, context: any) => Promise<unknown>,
  extra: Partial<Parameters<typeof defineProvider>[0]> = {},
): ProviderDefinition<any> {
  return defineProvider(
    {
      name: "test-provider",
      version: "1.2.3",
      source: "github.com/acme/test-provider",
      ...extra,
      tools: { t: tool },
    } as never,
    { t: handler } as never,
  );
}
