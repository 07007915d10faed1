// What defineTool and defineProvider produce at run time.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  defineProvider,
  defineTool,
  emptyConfig,
  type HandlerFor,
  type ProcessToolContext,
} from "../../../runtime/index.js";
import {
  fileInputSchema,
  fileOutputSchema,
  type FileInput,
  type FileOutput,
} from "../compile-time/builder-fixtures.js";

const io = { inputSchema: fileInputSchema, outputSchema: fileOutputSchema } as const;

describe("defineTool", () => {
  it("erases a spec into a declaration with every default stated", () => {
    const t = defineTool<FileInput, FileOutput>()({
      name: "read_file",
      kind: "data_source",
      risk: "read_only",
      description: "Reads.",
      ...io,
      concurrency: { safe: true, keyFields: ["path"] },
      idempotent: true,
    });
    assert.deepEqual(t.declaration, {
      name: "read_file",
      kind: "data_source",
      risk: "read_only",
      description: "Reads.",
      ...io,
      streaming: false,
      processBacked: false,
      concurrency: { safe: true, keyFields: ["path"] },
      idempotent: true,
      terminatesTurn: false,
      preview: false,
    });
    assert.equal(t.validators, undefined);
  });

  it("makes a process-backed tool streaming and keeps the timeout", () => {
    const t = defineTool<FileInput, FileOutput>()({
      name: "bash",
      kind: "resource",
      risk: "high",
      description: "Runs.",
      ...io,
      concurrency: { safe: false },
      idempotent: false,
      processBacked: true,
      defaultTimeoutMs: 60_000,
    });
    assert.equal(t.declaration.streaming, true);
    assert.equal(t.declaration.processBacked, true);
    assert.equal(t.declaration.defaultTimeoutMs, 60_000);
    assert.deepEqual(t.declaration.concurrency, { safe: false });
  });

  it("gives an interactive tool no concurrency", () => {
    const t = defineTool<FileInput, FileOutput>()({
      name: "ask",
      kind: "interactive",
      risk: "read_only",
      description: "Asks.",
      ...io,
      idempotent: false,
    });
    assert.equal("concurrency" in t.declaration, false);
  });
});

describe("defineTool(spec), the schema-first form", () => {
  const spec = {
    name: "read_file",
    kind: "data_source",
    risk: "read_only",
    description: "Reads.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string" }, limit: { type: "number" } },
      required: ["path"],
    },
    outputSchema: { type: "object", properties: { content: { type: "string" } }, required: ["content"] },
    concurrency: { safe: true, keyFields: ["path"] },
    idempotent: true,
    defaultTimeoutMs: 10_000,
  } as const;

  it("erases a spec exactly as the explicit form does", () => {
    assert.deepEqual(defineTool(spec), defineTool<FileInput, FileOutput>()(spec));
  });

  it("gives the handler the schemas' types, and the provider validates with the same schemas", async () => {
    const readFile = defineTool(spec);
    const p = defineProvider(
      { name: "p", version: "1", source: "github.com/acme/s", tools: { readFile } },
      {
        readFile: async (input) => {
          const typed: [string, number | undefined] = [input.path, input.limit];
          return { content: `${typed[0]}:${typed[1] ?? "all"}` };
        },
      },
    );
    const [tool] = p.tools;
    assert.ok(tool);
    assert.deepEqual(tool.declaration.inputSchema, spec.inputSchema);
    assert.deepEqual(tool.validateInput({ limit: 1 }), [{ path: "/path", message: "is required" }]);
    assert.deepEqual(tool.validateOutput({ content: "x" }), []);
  });
});

describe("defineTool with every type given (the form of generated code)", () => {
  it("erases a spec exactly as defineTool does", () => {
    const spec = {
      name: "write_file",
      kind: "resource",
      risk: "moderate",
      description: "Writes.",
      ...io,
      concurrency: { safe: true, keyFields: ["path"] },
      idempotent: true,
      defaultTimeoutMs: 5_000,
      terminatesTurn: true,
      preview: true,
    } as const;
    const generated = defineTool<
      FileInput,
      FileOutput,
      { kind: "resource"; streaming: false; processBacked: false; preview: true }
    >()(spec);
    assert.deepEqual(generated, defineTool<FileInput, FileOutput>()(spec));
    assert.notEqual(
      generated.declaration.concurrency?.keyFields,
      spec.concurrency.keyFields,
      "the key fields are copied",
    );
  });

  it("keeps the compiled validators and makes a process-backed tool streaming", () => {
    const validators = { input: () => [], output: () => [] };
    const t = defineTool<
      FileInput,
      FileOutput,
      { kind: "resource"; streaming: true; processBacked: true; preview: false }
    >()({
      name: "bash",
      kind: "resource",
      risk: "high",
      description: "Runs.",
      ...io,
      concurrency: { safe: false },
      idempotent: false,
      processBacked: true,
      validators,
    });
    assert.equal(t.validators, validators);
    assert.equal(t.declaration.streaming, true);
    assert.deepEqual(t.declaration.concurrency, { safe: false });
  });

  it("gives the handler the types it was given", () => {
    const t = defineTool<
      FileInput,
      FileOutput,
      { kind: "resource"; streaming: true; processBacked: true; preview: false }
    >()({
      name: "bash",
      kind: "resource",
      risk: "high",
      description: "Runs.",
      ...io,
      concurrency: { safe: false },
      idempotent: false,
      processBacked: true,
    });
    const handler: HandlerFor<typeof t, { root: string }> = async (input, context) => {
      const typed: [string, ProcessToolContext<{ root: string }>] = [input.path, context];
      return { content: typed[0] };
    };
    assert.equal(typeof handler, "function");
  });
});

describe("assembling a provider", () => {
  const plain = defineTool<FileInput, FileOutput>()({
    name: "plain",
    kind: "data_source",
    risk: "read_only",
    description: "d",
    ...io,
    concurrency: { safe: true },
    idempotent: true,
  });
  const withPreview = defineTool<FileInput, FileOutput>()({
    name: "edit",
    kind: "resource",
    risk: "moderate",
    description: "d",
    ...io,
    concurrency: { safe: true },
    idempotent: true,
    preview: true,
  });

  it("interprets the schemas when no compiled validators are given", () => {
    const p = defineProvider(
      { name: "p", version: "1", source: "github.com/acme/s", tools: { plain } },
      { plain: async (i) => ({ content: i.path }) },
    );
    const [tool] = p.tools;
    assert.ok(tool);
    assert.deepEqual(tool.validateInput({ path: "x" }), []);
    assert.deepEqual(tool.validateInput({}), [{ path: "/path", message: "is required" }]);
    assert.deepEqual(tool.validateOutput({ content: 1 }), [
      { path: "/content", message: "must be a string, not a number" },
    ]);
    assert.deepEqual(p.config.decode({}), { ok: true, value: {} });
  });

  it("refuses a declared preview without a handler, and a handler without the declaration", () => {
    const handler = async () => ({ content: "" });
    assert.throws(
      () =>
        defineProvider(
          { name: "p", version: "1", source: "github.com/acme/s", tools: { edit: withPreview } },
          { edit: handler },
        ),
      /tool edit declares preview, but no preview handler was given/,
    );
    const previews = { plain: async () => ({}) } as never;
    assert.throws(
      () =>
        defineProvider(
          { name: "p", version: "1", source: "github.com/acme/s", tools: { plain } },
          { plain: handler },
          previews,
        ),
      /tool plain has a preview handler but does not declare preview/,
    );
  });

  it("calls each handler and preview with its object as this, as a method call would", async () => {
    class Handlers {
      readonly prefix = "read:";
      async plain(input: FileInput): Promise<FileOutput> {
        return { content: this.prefix + input.path };
      }
    }
    class Previews {
      readonly title = "would edit";
      async edit(input: FileInput) {
        return { title: `${this.title} ${input.path}` };
      }
    }
    const p = defineProvider(
      { name: "p", version: "1", source: "github.com/acme/s", tools: { plain, edit: withPreview } },
      Object.assign(new Handlers(), { edit: async () => ({ content: "" }) }),
      new Previews() as never,
    );
    const [readTool, editTool] = p.tools;
    assert.deepEqual(await readTool?.handler({ path: "a" } as never, {} as never), { content: "read:a" });
    assert.deepEqual(await editTool?.preview?.({ path: "b" } as never, {} as never), { title: "would edit b" });
  });

  it("builds the same provider in the form generated code uses, the configuration's type given", async () => {
    const handlers = { plain: async (i: FileInput) => ({ content: i.path }) };
    const generated = defineProvider<Record<string, never>>()(
      { name: "p", version: "1", source: "github.com/acme/s", tools: { plain } },
      handlers,
    );
    const handWritten = defineProvider(
      { name: "p", version: "1", source: "github.com/acme/s", tools: { plain } },
      handlers,
    );
    assert.deepEqual(
      generated.tools.map((t) => t.declaration),
      handWritten.tools.map((t) => t.declaration),
    );
    assert.deepEqual(await generated.tools[0]?.handler({ path: "x" } as never, {} as never), { content: "x" });
    assert.throws(
      () =>
        defineProvider<Record<string, never>>()(
          { name: "p", version: "1", source: "github.com/acme/s", tools: { edit: withPreview } },
          { edit: handlers.plain },
        ),
      /tool edit declares preview, but no preview handler was given/,
    );
  });

  it("accepts only an empty config when the provider declares none", () => {
    const decoded = emptyConfig().decode({ root: "/" });
    assert.equal(decoded.ok, false);
    assert.deepEqual(!decoded.ok && decoded.violations.map((v) => v.path), ["/root"]);
  });
});
