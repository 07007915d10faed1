#!/usr/bin/env node
// The bin protoc-gen-harness-tool: runs the built plugin (dist/plugin/main.js) when the package is
// built, and the TypeScript sources through tsx in a checkout that is not.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const built = path.resolve(here, "../dist/plugin/main.js");
if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import(pathToFileURL(path.join(here, "main.ts")).href);
}
