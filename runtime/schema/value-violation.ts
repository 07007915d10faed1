/** One way a JSON value failed a schema. */
export interface ValueViolation {
  /** Where, as a JSON Pointer into the value ("" is the value itself, "/items/0/name" a nested field). */
  readonly path: string;
  /** What is wrong, e.g. "must be a string" or "is required". */
  readonly message: string;
}

/** Checks a JSON value against one schema and returns every violation (empty when it conforms). */
export type ValueValidator = (value: unknown) => readonly ValueViolation[];
