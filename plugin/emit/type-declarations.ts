/**
 * Prints the TypeScript declaration of a value shape through protoplugin's GeneratedFile: the name
 * through `f.export` (so protoplugin knows it is taken and aliases an import of the same name),
 * comments through `f.jsDoc`, one member per line, two-space indentation. Printed straight from
 * the shape: test/plugin/type-declarations.test.ts holds every declaration to what
 * json-schema-to-typescript's `compile()` declares for the same schema (docs/plugin.md says why).
 */
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import { docText, generatedFrom } from "./doc-text.js";
import { propertyDescription, type NamedShape, type ObjectShape, type PropertyShape, type ValueShape } from "../model/value-shape.js";

/** A shape a declaration names: anything but a reference to another declaration. */
export type DeclaredShape = Exclude<ValueShape, NamedShape>;

/** Prints `export interface name {...}` (or `export type name = ...;` for a shape that is not an object) with its JSDoc. */
export function printTypeDeclaration(f: GeneratedFile, name: string, shape: DeclaredShape, doc: string | undefined): void {
  if (doc) f.print(f.jsDoc(docText(doc)));
  if (shape.kind === "object") f.print(f.export("interface", name), " ", ...objectType(f, shape, ""));
  else f.print(f.export("type", name), " = ", ...typeOf(f, shape, ""), ";");
}

/** The type of `shape`; a named shape is a reference to its own declaration; continuation lines start with `indent`. */
function typeOf(f: GeneratedFile, shape: ValueShape, indent: string): Printable[] {
  switch (shape.kind) {
    case "named":
      return [shape.typeName];
    case "string":
      return [shape.enum ? shape.enum.map((value) => JSON.stringify(value)).join(" | ") : "string"];
    case "number":
    case "boolean":
      return [shape.kind];
    case "array": {
      const items = typeOf(f, shape.items, indent);
      return isUnion(shape.items) ? ["(", ...items, ")[]"] : [...items, "[]"];
    }
    case "map":
      return ["{\n", `${indent}  [key: string]: `, ...typeOf(f, shape.values, `${indent}  `), ";\n", indent, "}"];
    case "object":
      return objectType(f, shape, indent);
  }
}

/** True when `shape` prints as a union of several members (an enum of two values or more). */
function isUnion(shape: ValueShape): boolean {
  return shape.kind === "string" && shape.enum !== undefined && shape.enum.length > 1;
}

/** `{`, one member per line with its JSDoc, `}`; `{}` when there are none. */
function objectType(f: GeneratedFile, shape: ObjectShape, indent: string): Printable[] {
  if (shape.properties.length === 0) return ["{}"];
  const inner = `${indent}  `;
  const out: Printable[] = ["{\n"];
  for (const property of shape.properties) {
    const doc = docText(memberDoc(property), property.protoName && generatedFrom({ kind: "field", name: property.protoName }));
    if (doc) out.push(f.jsDoc(doc, inner), "\n");
    out.push(inner, memberKey(property), ": ", ...typeOf(f, property.shape, inner), ";\n");
  }
  out.push(indent, "}");
  return out;
}

/** A reference to a named type carries the message's comment on its declaration; the member keeps only the field's. */
function memberDoc(property: PropertyShape): string | undefined {
  return property.shape.kind === "named" ? property.description : propertyDescription(property);
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function memberKey(property: PropertyShape): string {
  const key = identifier.test(property.name) ? property.name : JSON.stringify(property.name);
  return `${key}${property.required ? "" : "?"}`;
}
