/**
 * Reliability: fuzzing (fast-check).
 *
 * 1. Random JSON arguments against every generated validator of the examples: the validator never
 *    throws and agrees with the runtime's reference `validateValue`; through createToolService's
 *    Invoke (arguments round-tripped through the wire encoding first), a value the validator
 *    rejects always ends as INVALID_ARGUMENTS without reaching the handler, and a value it accepts
 *    always reaches the handler (never INVALID_ARGUMENTS).
 * 2. Random protos inside and outside harness-tool's subset through protoc-gen-harness-tool
 *    in-process (built by buf in batches): never an exception; either generated files (which
 *    parse as TypeScript) or clean diagnostics, one per line, `file:line:col: Scope: message
 *    (fix)`, never a stack trace. Protos inside the subset always generate (their `<name>_tool.ts` at least).
 *
 * FUZZ_RUNS scales the run counts (soak/ runs this file's properties longer).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { create, fromBinary, toBinary, type JsonObject } from "@bufbuild/protobuf";
import type { FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import ts from "typescript";
import { InvokeRequestSchema, ToolErrorCategory } from "harness-tool/generated/pluggableharness/tool/v1/tool_pb.js";
import { defineProvider, ToolError, type ToolDefinition, type ValueViolation } from "harness-tool";
import { validateValue } from "harness-tool/schema";
import { createToolService } from "harness-tool/service";
import { buildFiles, generate } from "../../plugin/support/plugin-request.js";
import { repoRoot } from "../../support/buf.js";
import { recordingSink } from "../service/support/recording-sink.js";
import { printProto, protoModel, subsetProtoModel, type ProtoModel } from "./support/proto-arbitrary.js";
import { valueNear } from "./support/schema-arbitrary.js";

/** Multiplies every numRuns below (the soak sets it high). */
const scale = Number(process.env["FUZZ_RUNS"] ?? "1");
const runs = (n: number) => Math.max(1, Math.round(n * scale));
/** FUZZ_SEED / FUZZ_PATH replay a failure fast-check reported. */
const replay = {
  ...(process.env["FUZZ_SEED"] ? { seed: Number(process.env["FUZZ_SEED"]) } : {}),
  ...(process.env["FUZZ_PATH"] ? { path: process.env["FUZZ_PATH"] } : {}),
};

interface GeneratedTool {
  readonly module: string;
  readonly tool: ToolDefinition<unknown, unknown>;
  readonly validate: (value: unknown) => ValueViolation[];
}

/** Every `<x>Tool` export of examples/<name>/src/gen/**\/*_tool.ts with its `validate<X>Input`. */
async function exampleTools(): Promise<GeneratedTool[]> {
  const found: GeneratedTool[] = [];
  const examples = path.join(repoRoot, "examples");
  for (const file of readdirSync(examples, { recursive: true, encoding: "utf8" })
    .filter((f) => /[/\\]gen[/\\].*_tool\.ts$/.test(f))
    .sort()) {
    const mod = (await import(pathToFileURL(path.join(examples, file)).href)) as { [name: string]: unknown };
    for (const [name, value] of Object.entries(mod)) {
      if (!name.endsWith("Tool") || typeof value !== "object" || value === null || !("declaration" in value)) continue;
      const stem = name.slice(0, -"Tool".length);
      const validate = mod[`validate${stem[0]!.toUpperCase()}${stem.slice(1)}Input`];
      assert.equal(typeof validate, "function", `${file} exports validate...Input for ${name}`);
      found.push({
        module: file,
        tool: value as ToolDefinition<unknown, unknown>,
        validate: validate as GeneratedTool["validate"],
      });
    }
  }
  return found;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

describe("random arguments against the examples' generated validators", async () => {
  const tools = await exampleTools();
  let reached = 0;
  const byKey = Object.fromEntries(tools.map(({ tool }, i) => [`t${i}`, tool]));
  const handlers = Object.fromEntries(
    Object.keys(byKey).map((key) => [
      key,
      async () => {
        reached++;
        throw new ToolError("execution_failed", "the handler was reached");
      },
    ]),
  );
  const previews = Object.fromEntries(
    tools.flatMap(({ tool }, i) => (tool.declaration.preview ? [[`t${i}`, async () => ({})]] : [])),
  );
  const provider = defineProvider(
    { name: "fuzz", version: "1", source: "github.com/harness-tool/fuzz", tools: byKey },
    handlers as never,
    previews as never,
  );
  const service = createToolService(provider, { stderr: () => {} });

  it("covers every example tool", () => {
    assert.ok(tools.length >= 10, `only ${tools.length} generated tools found`);
  });

  for (const { module, tool, validate } of tools) {
    const d = tool.declaration;
    it(`${d.name} (${path.basename(module)}): never throws, agrees with validateValue, rejected ⇔ INVALID_ARGUMENTS`, async () => {
      const args = fc.oneof(
        { arbitrary: valueNear(d.inputSchema).filter(isObject), weight: 3 },
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
      );
      let accepted = 0;
      let rejected = 0;
      await fc.assert(
        fc.asyncProperty(args, async (value) => {
          // What the provider receives: the arguments after the wire's Struct encoding.
          const request = fromBinary(
            InvokeRequestSchema,
            toBinary(
              InvokeRequestSchema,
              create(InvokeRequestSchema, {
                call: {
                  id: "c",
                  toolName: d.name,
                  arguments: value as JsonObject,
                  callContext: { sessionId: "s", workingDirectory: "/tmp" },
                },
              }),
            ),
          );
          const received = request.call?.arguments ?? {};
          let violations: ValueViolation[] = [];
          assert.doesNotThrow(() => {
            violations = validate(received);
          });
          // The compiled validator also knows the proto types: a fraction in an integral field is
          // refused, which the subset's JSON Schema (no integer type) cannot say.
          const beyondSchema = (v: ValueViolation): boolean => v.message.startsWith("must be an integer, not ");
          assert.deepEqual(
            violations.filter((v) => !beyondSchema(v)),
            validateValue(d.inputSchema, received),
            "the compiled validator reports what the reference reports",
          );
          const before = reached;
          const rec = recordingSink();
          await service.invoke(request, rec.sink);
          const ends = rec.terminals();
          assert.equal(ends.length, 1, "exactly one terminal event");
          const end = ends[0]!.event;
          assert.equal(end.case, "error");
          const category = end.case === "error" ? end.value.category : undefined;
          if (violations.length > 0) {
            rejected++;
            assert.equal(
              category,
              ToolErrorCategory.INVALID_ARGUMENTS,
              `rejected ${JSON.stringify(received)} must be INVALID_ARGUMENTS`,
            );
            assert.equal(reached, before, "the handler is not called with invalid arguments");
          } else {
            accepted++;
            assert.notEqual(
              category,
              ToolErrorCategory.INVALID_ARGUMENTS,
              `accepted ${JSON.stringify(received)} must not be INVALID_ARGUMENTS`,
            );
            assert.equal(reached, before + 1, "valid arguments reach the handler");
          }
        }),
        { numRuns: runs(200), ...replay },
      );
      // The arbitrary is useful only if it lands on both sides.
      assert.ok(accepted > 0 && rejected > 0, `accepted ${accepted}, rejected ${rejected}`);
    });
  }
});

describe("random protos through protoc-gen-harness-tool", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "harness-tool-fuzz-protos-"));
    symlinkSync(path.join(repoRoot, "proto"), path.join(dir, "harness-proto"));
    writeFileSync(path.join(dir, "buf.yaml"), "version: v2\nmodules:\n  - path: fuzz\n  - path: harness-proto\n");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes the batch as fuzz/f<i>.proto, builds it with buf once, returns the files. */
  function build(models: readonly ProtoModel[]): { names: string[]; files: FileDescriptorProto[]; sources: string[] } {
    const moduleDir = path.join(dir, "fuzz");
    rmSync(moduleDir, { recursive: true, force: true });
    mkdirSync(moduleDir);
    const names = models.map((_, i) => `f${i}.proto`);
    const sources = models.map((m, i) => printProto(names[i]!, m));
    names.forEach((n, i) => {
      writeFileSync(path.join(moduleDir, n), sources[i]!);
    });
    return { names, files: buildFiles(".", dir), sources };
  }

  const diagnostic = /^[\w./-]+\.proto:\d+:\d+: [\w.]+: .+ \(.+\)$/;

  async function check(
    models: readonly ProtoModel[],
    mustGenerate: boolean,
  ): Promise<{ generated: number; refused: number }> {
    const { names, files, sources } = build(models);
    let generated = 0;
    let refused = 0;
    for (const [i, name] of names.entries()) {
      const context = `\n--- ${name} ---\n${sources[i]}`;
      const run = await generate(files, [name]);
      const error = run.response.error ?? "";
      for (const line of run.warnings) assert.match(line, diagnostic, `a clean warning line${context}`);
      if (error !== "") {
        refused++;
        assert.ok(!mustGenerate, `a proto inside the subset was refused:\n${error}${context}`);
        assert.equal(run.response.file.length, 0, "no files beside an error");
        assert.doesNotMatch(error, /\n\s+at /, `no stack trace${context}`);
        for (const line of error.split("\n"))
          assert.match(line, diagnostic, `a clean diagnostic, not an exception${context}`);
      } else {
        generated++;
        // A service none of whose rpcs carries the tool option is a plain gRPC service: no file.
        const tools = models[i]!.service?.rpcs.filter((r) => r.tool !== undefined).length ?? 0;
        const base = name.replace(/\.proto$/, "");
        if (mustGenerate || tools > 0)
          assert.ok(
            run.response.file.some((f) => f.name === `${base}_tool.ts`),
            `${base}_tool.ts for a file with tools (got ${run.response.file.map((f) => f.name).join(", ") || "nothing"})${context}`,
          );
        for (const file of run.response.file) {
          const out = ts.transpileModule(file.content, {
            reportDiagnostics: true,
            compilerOptions: { target: ts.ScriptTarget.ES2022 },
          });
          assert.deepEqual(
            out.diagnostics?.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")) ?? [],
            [],
            `${file.name} parses${context}`,
          );
        }
      }
    }
    return { generated, refused };
  }

  it("protos inside and outside the subset: files or clean diagnostics, never an exception", async () => {
    const totals = { generated: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(protoModel, { minLength: 30, maxLength: 30 }), async (models) => {
        const r = await check(models, false);
        totals.generated += r.generated;
        totals.refused += r.refused;
      }),
      { numRuns: runs(4), endOnFailure: true, ...replay },
    );
    assert.ok(totals.generated > 0 && totals.refused > 0, JSON.stringify(totals));
  });

  it("protos inside the subset always generate", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(subsetProtoModel, { minLength: 20, maxLength: 20 }), async (models) => {
        await check(models, true);
      }),
      { numRuns: runs(2), endOnFailure: true, ...replay },
    );
  });
});
