/** Every *.test.ts under `dir`, as paths relative to `root`, in name order. */
export function collectTestFiles(dir: string, root: string): string[];
/** The end-to-end files (and folders of them, ending in "/"), in the order they run. */
export const e2eTests: readonly string[];
/** The file's place in e2eTests (itself or its folder), or -1 when it is not an end-to-end one. */
export function e2eRank(file: string): number;
/** The suites test/run.mjs runs: `npm test`, `npm run test:e2e` and `npm run test:all`. */
export const suites: Readonly<Record<Suite, { command: string; e2e: boolean; rest: boolean }>>;
export type Suite = "unit" | "e2e" | "all";
/** The files of `suite` among `files`, in the order they run. */
export function suiteFiles(files: readonly string[], suite: Suite): string[];
/** What `suite` prints before its first file finishes, given every file it was chosen from. */
export function startLine(suite: Suite, files: readonly string[], concurrency: number): string;
