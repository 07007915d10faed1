/**
 * The compiled TypeScript declarations of one generated file, by type name. Produced before emit
 * (json-schema-to-typescript is async), read by the emitter.
 */
export type CompiledTypes = ReadonlyMap<string, string>;
