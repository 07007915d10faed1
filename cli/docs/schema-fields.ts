/**
 * A tool's input or output schema (the wire schema.v1.Schema) as the rows a reader scans: one per
 * field, nested objects and array elements as dotted paths (`filters.tags[]`), each with its type,
 * whether it is required, its description and its allowed values.
 */
import { type Schema, SchemaType } from "harness-tool/generated/pluggableharness/schema/v1/schema_pb.js";
import { cell, codeSpan, table } from "./markdown-text.js";

/** One field of a schema, flattened. */
export interface FieldRow {
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string;
  readonly values: readonly string[];
}

const typeNames: { readonly [t: number]: string } = {
  [SchemaType.OBJECT]: "object",
  [SchemaType.STRING]: "string",
  [SchemaType.NUMBER]: "number",
  [SchemaType.BOOLEAN]: "boolean",
  [SchemaType.ARRAY]: "array",
};

/** "string", "array of string", "array of object". */
function typeText(schema: Schema): string {
  const name = typeNames[schema.type] ?? "unspecified";
  return schema.type === SchemaType.ARRAY && schema.items ? `array of ${typeText(schema.items)}` : name;
}

/** The rows of `schema`'s properties under `prefix`, in the order the provider declares them. */
export function fieldRows(schema: Schema | undefined, prefix = ""): FieldRow[] {
  if (!schema) return [];
  const rows: FieldRow[] = [];
  for (const [name, child] of Object.entries(schema.properties)) {
    const path = `${prefix}${name}`;
    let element = child;
    let elementPath = path;
    while (element.type === SchemaType.ARRAY && element.items) {
      element = element.items;
      elementPath += "[]";
    }
    rows.push({
      path,
      type: typeText(child),
      required: schema.required.includes(name),
      description: child.description,
      values: element.enumValues,
    });
    if (element.type === SchemaType.OBJECT) rows.push(...fieldRows(element, `${elementPath}.`));
  }
  return rows;
}

/** The fields table of `schema`, or a sentence when it has no fields. */
export function fieldsTable(schema: Schema | undefined, none: string): string {
  const rows = fieldRows(schema);
  if (rows.length === 0) return none;
  return table(
    ["field", "type", "required", "description"],
    rows.map((row) => [
      codeSpan(row.path),
      cell(row.type),
      row.required ? "yes" : "no",
      cell(
        [row.description.trim(), row.values.length > 0 ? `One of: ${row.values.map(codeSpan).join(", ")}.` : ""]
          .filter((part) => part !== "")
          .join(" "),
      ),
    ]),
  );
}
