// The compiled validators agree with the runtime's interpreting validator (the reference):
// for random schemas of the subset and random values, the same violations, paths, messages and
// order. The generated code is run as the plugin prints it (TypeScript transpiled first).
import assert from "node:assert/strict";
import { it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin } from "@bufbuild/protoplugin";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import ts from "typescript";
import { escapePointer, typeOfJson, validateValue } from "../../runtime/schema/validate-value.js";
import type { ValueViolation } from "../../runtime/schema/value-violation.js";
import { ValidatorWriter } from "../../plugin/emit/validators.js";
import { toJsonSchema } from "../../plugin/model/json-schema-from-shape.js";
import type { NamedShape, ObjectShape, ValueShape } from "../../plugin/model/value-shape.js";

const names = fc.constantFrom("a", "b", "path", "x_y", "we/ird", "ti~lde", "`tick`", "${x}", "constructor");

const { shape } = fc.letrec<{ shape: ValueShape; object: ObjectShape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant<ValueShape>({ kind: "number" }),
    fc.constant<ValueShape>({ kind: "boolean" }),
    fc.constant<ValueShape>({ kind: "string" }),
    fc.uniqueArray(fc.constantFrom("json", "text", 'a"b'), { minLength: 1 }).map((e): ValueShape => ({ kind: "string", enum: e })),
    tie("shape").map((items): ValueShape => ({ kind: "array", items })),
    tie("object"),
  ),
  object: fc
    .uniqueArray(fc.record({ name: names, shape: tie("shape"), required: fc.boolean() }), { maxLength: 4, selector: (p) => p.name })
    .map((props): ObjectShape => ({ kind: "object", properties: props.map((p) => ({ ...p, sensitive: false })) })),
}));

const { value: json } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false, 0, 1.5, "json", "text", "", Number.NaN),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(names, tie("value"), { maxKeys: 4 }),
  ),
}));

/**
 * Compiles the validator of `root` the way the plugin prints it, and loads it: the TypeScript
 * target transpiled, the JavaScript target as printed.
 */
function compile(root: NamedShape, typed: boolean): (value: unknown) => ValueViolation[] {
  let text = "";
  const plugin = createEcmaScriptPlugin({
    name: "validators-test",
    version: "v0",
    generateTs(schema) {
      const f = schema.generateFile("validators.ts");
      const runtime = (name: string, typeOnly = false) => f.import(name, "harness-tool", typeOnly);
      const symbols = { typeOfJson: runtime("typeOfJson"), escapePointer: runtime("escapePointer"), ValueViolation: runtime("ValueViolation", true) };
      const writer = new ValidatorWriter(f, symbols, typed);
      writer.printValidator("export function validate", root);
      writer.printFunctions();
    },
  });
  for (const file of plugin.run(create(CodeGeneratorRequestSchema, { parameter: "target=ts" })).file) text += file.content;
  // The imports are the runtime's, given to the function below.
  const printed = `${text.replace(/^import .*$/gm, "")}\nreturn validate;`;
  const js = typed
    ? ts.transpileModule(`type ValueViolation = { path: string; message: string };\n${printed}`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } })
        .outputText
    : printed;
  return new Function("typeOfJson", "escapePointer", js.replace(/^export /gm, ""))(typeOfJson, escapePointer) as (value: unknown) => ValueViolation[];
}

for (const [language, typed] of [
  ["TypeScript", true],
  ["JavaScript", false],
] as const) {
  it(`compiled validators (${language}) report what validateValue reports`, () => {
    fc.assert(
      fc.property(shape, fc.array(json, { minLength: 1, maxLength: 8 }), (target, values) => {
        const root: NamedShape = { kind: "named", typeName: "Root", messageName: "test.Root", target: target.kind === "named" ? target.target : target };
        const validate = compile(root, typed);
        const schema = toJsonSchema(root);
        for (const value of values) assert.deepEqual(validate(value), validateValue(schema, value));
      }),
      { numRuns: 150 },
    );
  });
}

it("compiled validators refuse a fraction where the proto type is integral", () => {
  const integer: ObjectShape = { kind: "object", properties: [{ name: "count", shape: { kind: "number", integer: true }, required: true, sensitive: false }] };
  const list: ObjectShape = {
    kind: "object",
    properties: [{ name: "ids", shape: { kind: "array", items: { kind: "number", integer: true } }, required: true, sensitive: false }],
  };
  for (const typed of [true, false]) {
    const validate = compile({ kind: "named", typeName: "Root", messageName: "test.Root", target: integer }, typed);
    assert.deepEqual(validate({ count: 2 }), []);
    assert.deepEqual(validate({ count: -7 }), []);
    assert.deepEqual(validate({ count: 1.5 }), [{ path: "/count", message: "must be an integer, not 1.5" }]);
    assert.deepEqual(validate({ count: "2" }), [{ path: "/count", message: "must be a number, not a string" }]);
    const validateList = compile({ kind: "named", typeName: "Root", messageName: "test.Root", target: list }, typed);
    assert.deepEqual(validateList({ ids: [1, 2.25] }), [{ path: "/ids/1", message: "must be an integer, not 2.25" }]);
  }
});
