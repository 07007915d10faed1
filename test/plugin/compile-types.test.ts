// The plugin compiles types with json-schema-to-typescript's stages, synchronously, and prints the
// AST itself (plugin/compile-types.ts, plugin/print-types.ts). Held here to json-schema-to-typescript's
// public compile(): for every type of the good protos, its own generator prints from our AST exactly
// what compile() prints, and our printer declares the same type, formatting aside.
import assert from "node:assert/strict";
import path from "node:path";
import { before, describe, it } from "node:test";
import { create, createFileRegistry } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin } from "@bufbuild/protoplugin";
import { CodeGeneratorRequestSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { compile } from "json-schema-to-typescript";
import type { JSONSchema4 } from "json-schema";
import { generate } from "json-schema-to-typescript/dist/src/generator.js";
import type { AST } from "json-schema-to-typescript/dist/src/types/AST.js";
import { compileOptions, compileType, type TypeRequest } from "../../plugin/emit/compile-types.js";
import { collectTypes } from "../../plugin/emit/collect-types.js";
import { printTypeDeclaration } from "../../plugin/emit/print-types.js";
import { buildModel } from "../../plugin/model/file-model.js";
import { goldenProtos } from "./support/golden-targets.js";
import { buildFiles } from "./support/plugin-request.js";

/** `ast` printed by print-types.ts into a file of its own. */
function printed(name: string, ast: AST): string {
  let content = "";
  const plugin = createEcmaScriptPlugin({
    name: "print-types-test",
    version: "v0",
    generateTs(schema) {
      printTypeDeclaration(schema.generateFile("types.ts"), name, ast);
    },
  });
  for (const file of plugin.run(create(CodeGeneratorRequestSchema, { parameter: "target=ts" })).file) content += file.content;
  return content;
}

/** The type without comments, whitespace, `;`, parentheses, and with one spelling of an index signature. */
function tokens(text: string): string {
  return text
    .replace(/\/\*\*[\s\S]*?\*\//g, "")
    .replace(/\[k: string\]/g, "[key: string]")
    .replace(/[\s;()]/g, "");
}

describe("compiled types", () => {
  let requests: TypeRequest[] = [];
  before(() => {
    const files = buildFiles(".", path.join(import.meta.dirname, "protos"));
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
    const model = buildModel(goldenProtos.map((name) => registry.getFile(name) ?? assert.fail(`no ${name}`)));
    assert.equal(model.diagnostics.hasErrors, false);
    requests = model.files.flatMap((file) => [...collectTypes(file).requests]);
  });

  it("cover the good protos' types, inline objects and maps included", () => {
    assert.ok(requests.length >= 15, `only ${requests.length} types`);
    const all = JSON.stringify(requests.map((r) => r.schema));
    assert.match(all, /"additionalProperties":\{"type":"string"/, "a map");
    assert.match(all, /"tsType":/, "a reference to a named type");
    assert.match(all, /"enum":/, "an enum");
  });

  it("are what json-schema-to-typescript's compile() gives", async () => {
    for (const request of requests) {
      const expected = await compile(structuredClone(request.schema) as JSONSchema4, request.name, compileOptions);
      assert.equal(generate(compileType(request), compileOptions), expected, request.name);
    }
  });

  it("print as the same declarations, formatting aside", async () => {
    for (const request of requests) {
      const expected = await compile(structuredClone(request.schema) as JSONSchema4, request.name, compileOptions);
      assert.equal(tokens(printed(request.name, compileType(request))), tokens(expected), request.name);
    }
  });

  it("refuses a schema with a $ref (compile() would dereference it)", () => {
    assert.throws(() => compileType({ name: "Loop", schema: { type: "object", properties: { next: { $ref: "#" } } } }), /holds a \$ref/);
  });
});
