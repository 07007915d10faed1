/**
 * TypeScript types from JSON Schema through json-schema-to-typescript: its linker, normalizer,
 * parser and optimizer turn each schema into the AST of a TypeScript type, which print-types.ts
 * prints through protoplugin's GeneratedFile.
 *
 * Why its stages and not `compile()`: `compile()` is async (it dereferences `$ref` with
 * json-schema-ref-parser and may format with prettier), while a protoplugin plugin runs
 * synchronously under `runNodeJs`. The schemas given here never hold a `$ref` (a nested message is
 * a `tsType` reference to its own named type, see shape-to-json-schema.ts), so dereferencing has
 * nothing to do; formatting is done by printing the AST. The stages are the ones `compile()` runs,
 * in its order; test/plugin/compile-types.test.ts holds them to `compile()`'s output.
 */
import { DEFAULT_OPTIONS, type Options } from "json-schema-to-typescript";
import { link } from "json-schema-to-typescript/dist/src/linker.js";
import { normalize } from "json-schema-to-typescript/dist/src/normalizer.js";
import { optimize } from "json-schema-to-typescript/dist/src/optimizer.js";
import { nameAnonymousRecursiveTypes, parse } from "json-schema-to-typescript/dist/src/parser.js";
import type { AST } from "json-schema-to-typescript/dist/src/types/AST.js";
import { validate } from "json-schema-to-typescript/dist/src/validator.js";
import type { TypeScriptSchema } from "../model/json-schema-from-shape.js";

/** One named type to compile. The name must be a plain identifier (a dot would truncate it). */
export interface TypeRequest {
  readonly name: string;
  readonly schema: TypeScriptSchema;
}

/** The compiled type of each request, by name. */
export type CompiledTypes = ReadonlyMap<string, AST>;

/** json-schema-to-typescript's options: closed objects, `unknown` for anything. */
export const compileOptions: Options = {
  ...DEFAULT_OPTIONS,
  format: false,
  additionalProperties: false,
  bannerComment: "",
  declareExternallyReferenced: false,
  unknownAny: true,
};

/** Compiles one schema into the AST of its named type. */
export function compileType({ name, schema }: TypeRequest): AST {
  if (holdsRef(schema)) throw new Error(`the TypeScript schema of ${name} holds a $ref, which this plugin never writes`);
  // The stages mutate what they are given; give them a copy.
  const linked = link(structuredClone(schema) as Parameters<typeof link>[0]);
  const problems = validate(linked, name);
  if (problems.length > 0) throw new Error(`json-schema-to-typescript rejects the schema of ${name}: ${problems.join("; ")}`);
  const noReferences = new WeakMap<object, string>();
  const normalized = normalize(linked, noReferences, name, compileOptions);
  const processed = new Map();
  const usedNames = new Set<string>();
  const parsed = parse(normalized, compileOptions, undefined, processed, usedNames);
  nameAnonymousRecursiveTypes(parsed, processed, noReferences, usedNames);
  return optimize(parsed, compileOptions);
}

/** True when `schema` or a schema below it (properties, items, additionalProperties) has `$ref`. */
function holdsRef(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  const s = schema as { readonly [keyword: string]: unknown };
  if ("$ref" in s) return true;
  const properties = typeof s["properties"] === "object" && s["properties"] !== null ? Object.values(s["properties"]) : [];
  return [...properties, s["items"], s["additionalProperties"]].some(holdsRef);
}

/** Compiles every request; the result maps each name to its type. */
export function compileTypes(requests: readonly TypeRequest[]): CompiledTypes {
  return new Map(requests.map((request) => [request.name, compileType(request)]));
}
