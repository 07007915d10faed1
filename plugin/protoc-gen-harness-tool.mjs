#!/usr/bin/env node
// The bin protoc-gen-harness-tool: an installed package runs the bundled plugin
// (dist/protoc-gen-harness-tool.mjs, one file: bundle-plugin.mjs); a git checkout runs the
// TypeScript sources through tsx (with the runtime's sources, the harness-tool-source condition),
// so a stale dist/ never shadows them.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

/** A module resolve hook that adds the workspaces' source condition to every resolution. */
const sourceConditionHook = `export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, "harness-tool-source"] });
}`;

const here = path.dirname(fileURLToPath(import.meta.url));
const checkout = existsSync(path.resolve(here, "../.git"));
const bundle = path.join(here, "dist/protoc-gen-harness-tool.mjs");
if (existsSync(bundle) && !checkout) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  // The other workspaces (`harness-tool` is the runtime's) resolve to their TypeScript sources too.
  const { register: registerHooks } = await import("node:module");
  registerHooks(`data:text/javascript,${encodeURIComponent(sourceConditionHook)}`);
  await import(pathToFileURL(path.join(here, "main.ts")).href);
}
