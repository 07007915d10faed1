/**
 * How a proto enum appears in a schema: a string with `enum` values. The spelling is the value's
 * name without the enum's UPPER_SNAKE prefix, lowercased (`OUTPUT_FORMAT_JSON` -> `"json"`); the
 * `_UNSPECIFIED` zero value is left out, because a model should never send it.
 */
import type { DescEnum } from "@bufbuild/protobuf";
import { snakeCase } from "./names.js";

/** The values of an enum, or what keeps it from having any. */
export type EnumValuesResult =
  | { readonly ok: true; readonly values: readonly string[]; readonly comments: readonly (readonly [string, string])[] }
  | { readonly ok: false; readonly message: string; readonly fix: string };

/** `OUTPUT_FORMAT_JSON` of enum `OutputFormat` -> `json`; a value without the prefix is just lowercased. */
export function enumValueSpelling(enumName: string, valueName: string): string {
  const prefix = `${snakeCase(enumName).toUpperCase()}_`;
  const bare =
    valueName.startsWith(prefix) && valueName.length > prefix.length ? valueName.slice(prefix.length) : valueName;
  return bare.toLowerCase();
}

/** The spelled values of `desc` in declaration order, with their comments (for descriptions). */
export function enumValues(desc: DescEnum, commentOf: (index: number) => string): EnumValuesResult {
  const values: string[] = [];
  const comments: (readonly [string, string])[] = [];
  const seen = new Map<string, string>();
  for (const [index, value] of desc.values.entries()) {
    if (value.number === 0 && /(^|_)UNSPECIFIED$/.test(value.name)) continue;
    const spelled = enumValueSpelling(desc.name, value.name);
    const earlier = seen.get(spelled);
    if (earlier !== undefined) {
      if (desc.values.find((v) => v.name === earlier)?.number === value.number) continue; // an alias
      return {
        ok: false,
        message: `enum ${desc.typeName}: values ${earlier} and ${value.name} are both spelled "${spelled}" in the schema`,
        fix: "rename one of them",
      };
    }
    seen.set(spelled, value.name);
    values.push(spelled);
    const comment = commentOf(index);
    if (comment !== "") comments.push([spelled, comment]);
  }
  if (values.length === 0) {
    return {
      ok: false,
      message: `enum ${desc.typeName} has no values besides its zero value`,
      fix: "add the values a caller may send",
    };
  }
  return { ok: true, values, comments };
}
