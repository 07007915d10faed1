/**
 * Random JSON values aimed at a schema of the common subset: mostly well-formed (so valid values
 * are common), with wrong types, missing required properties, extra properties, enum misses and
 * arbitrary JSON mixed in at every depth.
 */
import fc from "fast-check";
import type { JsonSchema } from "harness-tool";

const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Values near `schema`: valid about four times in five at each node. */
export function valueNear(schema: JsonSchema): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: shaped(schema), weight: 4 }, { arbitrary: anyJson, weight: 1 });
}

function shaped(schema: JsonSchema): fc.Arbitrary<unknown> {
  switch (schema.type) {
    case "string":
      return schema.enum && schema.enum.length > 0
        ? fc.oneof({ arbitrary: fc.constantFrom(...schema.enum), weight: 4 }, fc.string())
        : fc.string({ maxLength: 12 });
    case "number":
      return fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.constantFrom(0, -0, 1e308));
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(valueNear(schema.items), { maxLength: 3 });
    case "object": {
      const names = Object.keys(schema.properties);
      const props = Object.fromEntries(names.map((n) => [n, valueNear(schema.properties[n]!)]));
      const required = new Set(schema.required ?? []);
      return fc
        .record({
          known: fc.record(props, { requiredKeys: [] }),
          // Usually keep the required properties; sometimes drop some.
          keepRequired: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, fc.constant(false)),
          extra: fc.oneof(
            { arbitrary: fc.constant({}), weight: 4 },
            fc.dictionary(fc.string({ maxLength: 6 }), anyJson, { maxKeys: 2 }),
          ),
        })
        .chain(({ known, keepRequired, extra }) => {
          if (!keepRequired) return fc.constant({ ...extra, ...known });
          const missing = [...required].filter((n) => !(n in known));
          const fill = fc.record(Object.fromEntries(missing.map((n) => [n, shaped(schema.properties[n]!)])));
          return fill.map((filled) => ({ ...extra, ...known, ...filled }));
        });
    }
  }
}
