#!/usr/bin/env node
// The bin protoc-gen-harness-tool: an installed package runs the built plugin (dist/plugin/main.js);
// a git checkout runs the TypeScript sources through tsx, so a stale dist/ never shadows them.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const built = path.resolve(here, "../dist/plugin/main.js");
if (existsSync(built) && !existsSync(path.resolve(here, "../.git"))) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(here, "main.ts")).href);
}
