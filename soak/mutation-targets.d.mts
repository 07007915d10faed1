import type { Mutation } from "./mutations.mjs";

/** How many times `text` occurs in `haystack` (occurrences do not overlap). */
export declare function occurrences(haystack: string, text: string): number;
/** One line per problem of `mutations` against the tree at `root`; empty when every one is armed. */
export declare function mutationProblems(root: string, mutations: readonly Mutation[]): string[];
/** What a mutant's test run says, from its TAP counts. */
export declare function mutantVerdict(tap: string): "killed" | "survived" | "no test ran";
