// The generated validators agree with the runtime's validator over the subset schema the
// generated module exports (the reference): for random shapes and random values, the same
// violations, paths, messages and order. The generated code is run as the plugin prints it
// (TypeScript transpiled first), with the runtime's own validatorFor; where the plugin prints a
// check description of its own (an integral number), that description is held to the schema too.
import assert from "node:assert/strict";
import { it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin } from "@bufbuild/protoplugin";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import ts from "typescript";
import { validateValue, validatorFor } from "../../runtime/schema/validate-value.js";
import type { ValueViolation } from "../../runtime/schema/value-violation.js";
import { printLiteral } from "../../plugin/emit/print-literal.js";
import { ValidatorWriter } from "../../plugin/emit/validators.js";
import { schemaChecksAll, toJsonSchema, valueCheckOf } from "../../plugin/model/json-schema-from-shape.js";
import type { NamedShape, ObjectShape, ValueShape } from "../../plugin/model/value-shape.js";

const names = fc.constantFrom("a", "b", "path", "x_y", "we/ird", "ti~lde", "`tick`", "${x}", "constructor");

const { shape } = fc.letrec<{ shape: ValueShape; object: ObjectShape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant<ValueShape>({ kind: "number" }),
    fc.constant<ValueShape>({ kind: "number", integer: true }),
    fc.constant<ValueShape>({ kind: "boolean" }),
    fc.constant<ValueShape>({ kind: "string" }),
    fc
      .uniqueArray(fc.constantFrom("json", "text", 'a"b'), { minLength: 1 })
      .map((e): ValueShape => ({ kind: "string", enum: e })),
    tie("shape").map((items): ValueShape => ({ kind: "array", items })),
    tie("object"),
  ),
  object: fc
    .uniqueArray(fc.record({ name: names, shape: tie("shape"), required: fc.boolean() }), {
      maxLength: 4,
      selector: (p) => p.name,
    })
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
 * Prints the validator of `root` the way the plugin prints it (after the schema constant it
 * exports), and loads it: the TypeScript target transpiled, the JavaScript target as printed.
 */
function compile(root: NamedShape, typed: boolean): (value: unknown) => readonly ValueViolation[] {
  let text = "";
  const plugin = createEcmaScriptPlugin({
    name: "validators-test",
    version: "v0",
    generateTs(schema) {
      const f = schema.generateFile("validators.ts");
      f.print("const rootSchema = ", ...printLiteral(f, toJsonSchema(root)), ";");
      const writer = new ValidatorWriter(f, f.import("validatorFor", "harness-tool"));
      writer.printValidator(f.export("const", "validate"), "validate", root, "rootSchema");
    },
  });
  for (const file of plugin.run(create(CodeGeneratorRequestSchema, { parameter: "target=ts" })).file)
    text += file.content;
  // The import is the runtime's, given to the function below.
  const printed = `${text.replace(/^import .*$/gm, "")}\nreturn validate;`;
  const js = typed
    ? ts.transpileModule(printed, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText
    : printed;
  return new Function("validatorFor", js.replace(/^export /gm, ""))(validatorFor) as (
    value: unknown,
  ) => readonly ValueViolation[];
}

/** The violations an integral number adds beyond the subset schema, left out. */
function withoutIntegerChecks(violations: readonly ValueViolation[]): ValueViolation[] {
  return violations.filter((v) => !v.message.startsWith("must be an integer, not "));
}

for (const [language, typed] of [
  ["TypeScript", true],
  ["JavaScript", false],
] as const) {
  it(`generated validators (${language}) report what validateValue reports over the exported schema`, () => {
    fc.assert(
      fc.property(shape, fc.array(json, { minLength: 1, maxLength: 8 }), (target, values) => {
        const root: NamedShape = {
          kind: "named",
          typeName: "Root",
          messageName: "test.Root",
          target: target.kind === "named" ? target.target : target,
        };
        const validate = compile(root, typed);
        const schema = toJsonSchema(root);
        for (const value of values) {
          const reported = validate(value);
          assert.deepEqual(withoutIntegerChecks(reported), validateValue(schema, value));
          if (schemaChecksAll(root)) assert.deepEqual(reported, validateValue(schema, value));
        }
      }),
      { numRuns: 150 },
    );
  });
}

it("the check description of a shape checks what its subset schema checks, plus integers", () => {
  fc.assert(
    fc.property(shape, fc.array(json, { minLength: 1, maxLength: 8 }), (target, values) => {
      const check = valueCheckOf(target);
      const schema = toJsonSchema(target);
      for (const value of values)
        assert.deepEqual(withoutIntegerChecks(validateValue(check, value)), validateValue(schema, value));
    }),
    { numRuns: 150 },
  );
});

it("compiled validators refuse a fraction where the proto type is integral", () => {
  const integer: ObjectShape = {
    kind: "object",
    properties: [{ name: "count", shape: { kind: "number", integer: true }, required: true, sensitive: false }],
  };
  const list: ObjectShape = {
    kind: "object",
    properties: [
      {
        name: "ids",
        shape: { kind: "array", items: { kind: "number", integer: true } },
        required: true,
        sensitive: false,
      },
    ],
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
