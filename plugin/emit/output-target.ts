/** The forms a generated module takes, as protoplugin's `target` option names them. */

/** What one generated file holds: TypeScript, JavaScript, or TypeScript declarations. */
export type OutputTarget = "ts" | "js" | "dts";

/** The file name extension of each target. */
export const targetExtension: { readonly [T in OutputTarget]: string } = { ts: ".ts", js: ".js", dts: ".d.ts" };
