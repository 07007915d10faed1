/**
 * When two messages are the same shape. Providers often give each tool its own copy of a small
 * message (a paging window, a label filter, a result entry); the generated code declares one
 * interface and one check function for all the copies that are alike, so a provider's type-check
 * and its generated module grow with its distinct shapes rather than with its tools.
 */
import { toTypeScriptSchema } from "./json-schema-from-shape.js";
import type { NamedShape, ValueShape } from "./value-shape.js";

/**
 * A key equal for values that pass and fail exactly the same checks: kinds, property names,
 * requiredness, enum values and nesting, with descriptions and message names left out.
 */
export function checkKey(shape: ValueShape): string {
  return JSON.stringify(checkStructure(shape));
}

function checkStructure(shape: ValueShape): unknown {
  switch (shape.kind) {
    case "named":
      return checkStructure(shape.target);
    case "string":
      return shape.enum ? ["string", shape.enum] : "string";
    case "number":
      return shape.integer ? "integer" : "number";
    case "boolean":
      return shape.kind;
    case "array":
      return ["array", checkStructure(shape.items)];
    case "map":
      return ["map", checkStructure(shape.values)];
    case "object":
      return ["object", shape.properties.map((p) => [p.name, p.required, checkStructure(p.shape)])];
  }
}

/**
 * Names one TypeScript type per distinct named shape: the first message of each shape keeps its
 * interface, later messages of the same shape (same fields, types, requiredness and descriptions,
 * so the same declaration text) name it through an alias.
 */
export class SharedTypeNames {
  private readonly byKey = new Map<string, NamedShape>();
  private readonly declaring = new Map<string, NamedShape>();

  /** The shape whose interface declares `shape`: itself, or an earlier alike shape. */
  declaringShape(shape: NamedShape): NamedShape {
    const known = this.declaring.get(shape.typeName);
    if (known !== undefined) return known;
    // Nested references count by the interface they resolve to, so alike parents of alike
    // children are alike too. The model refuses recursive messages, so this ends.
    const key = JSON.stringify(
      toTypeScriptSchema(shape, undefined, { nameOf: (child) => this.declaringShape(child).typeName }),
    );
    const first = this.byKey.get(key);
    if (first === undefined) this.byKey.set(key, shape);
    this.declaring.set(shape.typeName, first ?? shape);
    return first ?? shape;
  }
}
