// The plugin prints its TypeScript declarations straight from the value shapes
// (plugin/emit/type-declarations.ts). Held here to json-schema-to-typescript's public compile():
// for every type of the good protos and the examples, compile() of the same schema declares the
// same type, formatting and comments aside. docs/plugin.md (TypeScript types) says why the plugin
// does not call it.
import assert from "node:assert/strict";
import path from "node:path";
import { before, describe, it } from "node:test";
import { create, createFileRegistry, type DescFile } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin } from "@bufbuild/protoplugin";
import { CodeGeneratorRequestSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import type { JSONSchema4 } from "json-schema";
import { compile, type Options } from "json-schema-to-typescript";
import { collectTypes } from "../../plugin/emit/collect-types.js";
import { printTypeDeclaration, type DeclaredShape } from "../../plugin/emit/type-declarations.js";
import { buildModel } from "../../plugin/model/file-model.js";
import { toTypeScriptSchema } from "../../plugin/model/json-schema-from-shape.js";
import { repoRoot } from "../support/buf.js";
import { goldenProtos } from "./support/golden-targets.js";
import { buildFiles } from "./support/plugin-request.js";

/**
 * json-schema-to-typescript's options for closed types; format off, as the comparison sets
 * formatting aside (docs/plugin.md#typescript-types-printed-from-the-value-shapes).
 */
const options: Partial<Options> = { format: false, additionalProperties: false, bannerComment: "", declareExternallyReferenced: false, unknownAny: true };

interface Declared {
  readonly name: string;
  readonly shape: DeclaredShape;
  readonly doc: string | undefined;
}

/** The declaration printed into a file of its own. */
function printed({ name, shape, doc }: Declared): string {
  let content = "";
  const plugin = createEcmaScriptPlugin({
    name: "type-declarations-test",
    version: "v0",
    generateTs(schema) {
      printTypeDeclaration(schema.generateFile("types.ts"), name, shape, doc);
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

function declarations(files: readonly DescFile[]): Declared[] {
  const model = buildModel(files);
  assert.equal(model.diagnostics.hasErrors, false);
  return model.files.flatMap((file) => [...collectTypes(file).values()].flat().flatMap((entry) => (entry.kind === "declared" ? [entry] : [])));
}

describe("type declarations", () => {
  let declared: Declared[] = [];
  before(() => {
    const good = buildFiles(".", path.join(import.meta.dirname, "protos"));
    const goodRegistry = createFileRegistry(create(FileDescriptorSetSchema, { file: good }));
    declared = declarations(goldenProtos.map((name) => goodRegistry.getFile(name) ?? assert.fail(`no ${name}`)));
    for (const example of ["exec", "filesystem", "search", "task", "web", "agent", "user"]) {
      const files = buildFiles("proto", path.join(repoRoot, "examples", example));
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files }));
      const own = files.filter((f) => f.name.startsWith("examples/")).map((f) => registry.getFile(f.name) ?? assert.fail(f.name));
      declared.push(...declarations(own));
    }
  });

  it("cover inline objects, maps, references and enums", () => {
    assert.ok(declared.length >= 40, `only ${declared.length} types`);
    const all = JSON.stringify(declared.map((d) => toTypeScriptSchema(d.shape)));
    assert.match(all, /"additionalProperties":\{"type":"string"/, "a map");
    assert.match(all, /"tsType":/, "a reference to a named type");
    assert.match(all, /"enum":/, "an enum");
  });

  it("declare what json-schema-to-typescript's compile() declares for the same schema", async () => {
    for (const d of declared) {
      const expected = await compile(toTypeScriptSchema(d.shape, d.doc) as JSONSchema4, d.name, options);
      assert.equal(tokens(printed(d)).replace(/^.*?export/, "export"), tokens(expected), d.name);
    }
  });
});
