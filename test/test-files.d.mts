/** Every *.test.ts under `dir`, as paths relative to `root`, in name order. */
export function collectTestFiles(dir: string, root: string): string[];
/** The slow files (and folders of them, ending in "/"), in the order they run at the end. */
export const slowTests: readonly string[];
/** The file's place in slowTests (itself or its folder), or -1 when it is not a slow one. */
export function slowRank(file: string): number;
/** `files` in the order they run: the rest in name order, then the slow ones in slowTests' order. */
export function inRunOrder(files: readonly string[]): string[];
/** What `npm test` prints before its first file finishes. */
export function startLine(files: readonly string[], concurrency: number): string;
