#!/usr/bin/env node
// The `harness-tool` bin. An installed package runs the compiled CLI from dist/; a git checkout of
// the repository runs the TypeScript sources through tsx, so a stale dist/ never shadows them.
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, "dist/cli/main.js");
let entry;
if (existsSync(compiled) && !existsSync(path.join(root, ".git"))) {
  entry = compiled;
} else {
  const { register } = await import("tsx/esm/api");
  register();
  entry = path.join(root, "cli/main.ts");
}
const { main } = await import(pathToFileURL(entry).href);
process.exitCode = await main(process.argv.slice(2));
