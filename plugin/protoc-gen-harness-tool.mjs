#!/usr/bin/env node
// The bin protoc-gen-harness-tool: an installed package runs the bundled plugin
// (dist/plugin/protoc-gen-harness-tool.mjs, one file: plugin/bundle-plugin.mjs), or the tsc build of
// it (dist/plugin/main.js) when there is no bundle; a git checkout runs the TypeScript sources
// through tsx, so a stale dist/ never shadows them.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const checkout = existsSync(path.resolve(here, "../.git"));
const built = ["../dist/plugin/protoc-gen-harness-tool.mjs", "../dist/plugin/main.js"].map((p) => path.resolve(here, p)).find((p) => existsSync(p));
if (built && !checkout) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(here, "main.ts")).href);
}
