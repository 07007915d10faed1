// The TypeScript types the plugin emits (json-schema-to-typescript's compile() of each declared
// type's schema, emit/compiled-types.ts), read back with the TypeScript parser: each declaration's
// name, every member's optionality and type, descriptions as JSDoc with their `@generated from`
// tags, in both typed targets; and across the examples, every declared type of the model is
// emitted under its name with the members the model gives it.
import assert from "node:assert/strict";
import path from "node:path";
import { before, describe, it } from "node:test";
import { create, createFileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import ts from "typescript";
import { collectTypes } from "../../plugin/emit/collect-types.js";
import { layout } from "../../plugin/emit/compiled-types.js";
import { buildModel } from "../../plugin/model/file-model.js";
import { repoRoot } from "../support/buf.js";
import { buildFiles, generate } from "./support/plugin-request.js";

interface Member {
  readonly optional: boolean;
  /** The type as written, without whitespace or parentheses. */
  readonly type: string;
  /** The JSDoc text before the member. */
  readonly doc: string;
}

interface Declaration {
  readonly kind: "interface" | "type";
  readonly doc: string;
  /** Members of an interface; the aliased type of a type alias (as a member named ""). */
  readonly members: ReadonlyMap<string, Member>;
}

const compact = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/[\s()]/g, "");

function jsDocOf(node: ts.Node, source: ts.SourceFile): string {
  return ts
    .getJSDocCommentsAndTags(node)
    .map((d) => d.getText(source))
    .join("\n");
}

/** The exported interfaces and type aliases of a module, by name. */
function declarationsOf(content: string, name: string): Map<string, Declaration> {
  const source = ts.createSourceFile(name, content, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = new Map<string, Declaration>();
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement)) {
      const members = new Map<string, Member>();
      for (const m of statement.members) {
        const key = ts.isPropertySignature(m) ? m.name.getText(source).replace(/^"|"$/g, "") : "[index]";
        const type =
          ts.isPropertySignature(m) || ts.isIndexSignatureDeclaration(m)
            ? (m.type?.getText(source) ?? "")
            : m.getText(source);
        members.set(key, {
          optional: ts.isPropertySignature(m) && m.questionToken !== undefined,
          type: compact(type),
          doc: jsDocOf(m, source),
        });
      }
      out.set(statement.name.text, { kind: "interface", doc: jsDocOf(statement, source), members });
    } else if (ts.isTypeAliasDeclaration(statement)) {
      const type = { optional: false, type: compact(statement.type.getText(source)), doc: "" };
      out.set(statement.name.text, { kind: "type", doc: jsDocOf(statement, source), members: new Map([["", type]]) });
    }
  }
  return out;
}

async function emitted(
  files: FileDescriptorProto[],
  toGenerate: string[],
  parameter: string,
  module: string,
): Promise<Map<string, Declaration>> {
  const run = await generate(files, toGenerate, parameter);
  assert.equal(run.response.error ?? "", "");
  const file = run.response.file.find((f) => f.name === module) ?? assert.fail(`no ${module}`);
  assert.ok(!file.content.includes("\u0000"), "a placeholder was left");
  return declarationsOf(file.content, module);
}

/** `name: type` of each member, `?` marking an optional one. */
function shapeOf(declaration: Declaration | undefined): string[] {
  return [...(declaration?.members ?? new Map<string, Member>())].map(
    ([name, m]) => `${name}${m.optional ? "?" : ""}: ${m.type}`,
  );
}

describe("the emitted TypeScript types", () => {
  let files: FileDescriptorProto[] = [];
  before(() => {
    files = buildFiles(".", path.join(import.meta.dirname, "protos"));
  });

  for (const [parameter, module] of [
    ["target=ts", "mapping_tool.ts"],
    ["target=js+dts", "mapping_tool.d.ts"],
  ] as const) {
    it(`declare names, optional and required members, enums, nested messages, lists and maps (${parameter})`, async () => {
      const types = await emitted(files, ["mapping.proto"], parameter, module);
      assert.deepEqual(shapeOf(types.get("SearchInput")).slice(0, 4), [
        "query: string",
        "limit?: number",
        "offset: number",
        'format: "json"|"text"',
      ]);
      assert.ok(shapeOf(types.get("SearchInput")).includes('formats?: "json"|"text"[]'), "a list of an enum");
      assert.ok(
        shapeOf(types.get("SearchInput")).includes("weights?: Row[]"),
        "a list of a nested message, by its name",
      );
      assert.ok(
        shapeOf(types.get("SearchInput")).includes("numbers?: Numbers"),
        "an optional nested message, by its name",
      );
      assert.deepEqual(shapeOf(types.get("SearchOutput")), [
        "records: RecordMessage[]",
        "best?: RecordMessage",
        "ran_at: string",
      ]);
      // An inline json_schema: no proto field, so no `@generated from` on its members.
      assert.deepEqual(shapeOf(types.get("StoreInput")), ["key: string", 'parts?: {name:"a"|"b";size?:number;}[]']);
      assert.deepEqual(shapeOf(types.get("RecordMessage")), ["id: string", "raw: string", "origin: RecordOrigin"]);
      assert.deepEqual(shapeOf(types.get("MappingConfig")), [
        "api_key: string",
        "endpoint: {url:string;verify_tls?:boolean;}",
        "retry_delays: number[]",
        "headers?: {[k:string]:string;}",
      ]);
      assert.equal(types.get("CountInput")?.kind, "type");
      assert.deepEqual(shapeOf(types.get("CountInput")), [": SearchInput"], "two tools sharing a request: an alias");
      assert.deepEqual(
        shapeOf(types.get("CountResponseSource")),
        [": RecordOrigin"],
        "a message alike to another: an alias",
      );
    });

    it(`carry the descriptions as JSDoc, each with its @generated from tag (${parameter})`, async () => {
      const types = await emitted(files, ["mapping.proto"], parameter, module);
      const search = types.get("SearchInput") ?? assert.fail("no SearchInput");
      assert.match(
        search.doc,
        /The input of the `search` tool\.\n \*\n \* A search\.\n \*\n \* @generated from message good\.mapping\.SearchRequest\n/,
      );
      assert.match(
        search.members.get("query")?.doc ?? "",
        /The query text\.\n {3}\*\n {3}\* @generated from field good\.mapping\.SearchRequest\.query\n/,
      );
      assert.match(search.members.get("limit")?.doc ?? "", /Largest number of results\.[\s*]+An integer\./);
      const endpoint = types.get("MappingConfig")?.members.get("endpoint")?.doc ?? "";
      assert.match(endpoint, /@generated from field good\.mapping\.MappingConfig\.endpoint/);
      assert.match(
        types.get("MappingConfig")?.doc ?? "",
        /The configuration of MappingService[\s\S]*@generated from message good\.mapping\.MappingConfig/,
      );
      for (const [name, declaration] of types) {
        if (
          declaration.kind !== "interface" ||
          !/^(Search|Count|Row|Numbers|Record|Mapping)/.test(name) ||
          name.endsWith("Handlers") ||
          name.endsWith("Options")
        )
          continue;
        assert.match(declaration.doc, /@generated from message /, name);
        for (const [member, m] of declaration.members)
          assert.match(m.doc, /@generated from field /, `${name}.${member}`);
      }
    });
  }

  it("declare every type of the examples' models under its name, with the model's members", async () => {
    let count = 0;
    for (const example of ["exec", "filesystem", "search", "task", "web", "agent", "user"]) {
      const protos = buildFiles("proto", path.join(repoRoot, "examples", example));
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: protos }));
      const own = protos.filter((f) => f.name.startsWith("examples/"));
      const model = buildModel(own.map((f) => registry.getFile(f.name) ?? assert.fail(f.name)));
      for (const file of model.files) {
        const types = await emitted(protos, [file.protoFile], "target=ts", `${file.outputBase}.ts`);
        for (const entry of [...collectTypes(file).values()].flat()) {
          const declaration = types.get(entry.name) ?? assert.fail(`${example}: no ${entry.name}`);
          count++;
          if (entry.kind === "alias") {
            assert.deepEqual(shapeOf(declaration), [`: ${entry.target}`], entry.name);
          } else if (entry.shape.kind === "object") {
            const want = entry.shape.properties.map((p) => `${p.name}${p.required ? "" : "?"}`);
            assert.deepEqual(
              [...declaration.members].map(([name, m]) => `${name}${m.optional ? "?" : ""}`),
              want,
              entry.name,
            );
          }
        }
      }
    }
    assert.ok(count >= 30, `only ${count} types`);
  });

  it("lay compile()'s unformatted output out: indentation, `;` after members, `{}` when empty", () => {
    const raw =
      "/**\n * A.\n * \n */\nexport interface A {\n/**\n * B.\n */\nb?: {\n[k: string]: string\n}\nc: {\n\n}\nd: {\nx: number\n}[]\n}\n";
    assert.equal(
      layout(raw),
      "/**\n * A.\n *\n */\nexport interface A {\n  /**\n   * B.\n   */\n  b?: {\n    [k: string]: string;\n  };\n  c: {};\n  d: {\n    x: number;\n  }[];\n}",
    );
    assert.equal(layout("export interface Empty {\n\n}\n"), "export interface Empty {}");
  });
});
