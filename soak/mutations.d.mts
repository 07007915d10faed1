/** One mutation: name, file, the text it replaces, its replacement, the tests that must fail, their name pattern, and an optional second edit. */
export type Mutation = readonly [
  name: string,
  file: string,
  from: string,
  to: string,
  tests: readonly string[],
  pattern: string,
  extra?: readonly [file: string, from: string, to: string],
];
export declare const mutations: readonly Mutation[];
