// The compiled validators agree with the runtime's interpreting validator (the reference):
// for random schemas of the subset and random values, the same violations, paths, messages and
// order. The generated code is run as the plugin prints it (TypeScript transpiled first).
import assert from "node:assert/strict";
import { it } from "node:test";
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
  const writer = new ValidatorWriter({ typeOfJson: "typeOfJson", escapePointer: "escapePointer", ValueViolation: "ValueViolation" }, typed);
  const lines = [...writer.validator("export function validate", root), ...writer.functions()];
  const printed = `${lines.map((l) => l.join("")).join("\n")}\nreturn validate;`;
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
