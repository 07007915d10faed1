/**
 * The TypeScript type of the values a schema of the subset accepts, computed by the compiler from
 * a literal (`as const`) schema: what the schema-first `defineTool(spec)` gives a handler as its
 * input and output, so the schema is written once and the types follow it.
 *
 * The subset (json-schema.ts) is small enough to map whole, in a few conditional types and no
 * recursion through unions: object → an object type (a key in `required` is required, the others
 * optional), string → string (the union of its `enum` when it has one), number → number,
 * boolean → boolean, array → an array of its items' type. There is no null, union or reference to
 * map. docs/guide.md#without-protos gives the type-check cost against the explicit form.
 */

/** The type of the values `S`, a literal schema of the subset, accepts. */
export type ValueOfSchema<S> = S extends { readonly type: "object"; readonly properties: infer P }
  ? ObjectOfSchema<P, S extends { readonly required: readonly (infer R)[] } ? R : never>
  : S extends { readonly type: "string"; readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly type: "string" }
      ? string
      : S extends { readonly type: "number" }
        ? number
        : S extends { readonly type: "boolean" }
          ? boolean
          : S extends { readonly type: "array"; readonly items: infer I }
            ? ValueOfSchema<I>[]
            : never;

/**
 * An object node's value: the `required` keys `R` required, the other properties optional. With no
 * properties, `Record<string, never>` (as `emptyConfig`'s), since `{}` would accept any value.
 */
type ObjectOfSchema<P, R> = [keyof P] extends [never]
  ? Record<string, never>
  : Flatten<
      { -readonly [K in Extract<keyof P, R>]: ValueOfSchema<P[K]> } & {
        -readonly [K in Exclude<keyof P, R>]?: ValueOfSchema<P[K]>;
      }
    >;

/** One object type instead of an intersection, so hovers and errors read `{ path: string; limit?: number }`. */
type Flatten<T> = { [K in keyof T]: T[K] } & {};
