#!/usr/bin/env node
// The `harness-tool` bin. An installed package runs the compiled CLI from dist/; a git checkout of
// the repository runs the TypeScript sources through tsx, so a stale dist/ never shadows them.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

/** A module resolve hook that adds the workspaces' source condition to every resolution. */
const sourceConditionHook = `export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, "harness-tool-source"] });
}`;

const here = path.dirname(fileURLToPath(import.meta.url));
const compiled = path.join(here, "dist/main.js");
let entry;
if (existsSync(compiled) && !existsSync(path.join(here, "../.git"))) {
  entry = compiled;
} else {
  const { register } = await import("tsx/esm/api");
  register();
  // The other workspaces (`harness-tool` is the runtime's) resolve to their TypeScript sources too.
  const { register: registerHooks } = await import("node:module");
  registerHooks(`data:text/javascript,${encodeURIComponent(sourceConditionHook)}`);
  entry = path.join(here, "main.ts");
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
