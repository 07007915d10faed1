#!/usr/bin/env node
// The provider's executable: the kernel starts it directly (no shell, no npx) and talks to it
// through go-plugin. Nothing but the handshake line may go to stdout; console output goes to stderr.
import { stat } from "node:fs/promises";
import path from "node:path";
import { configError, serve } from "harness-tool";
import packageJson from "../package.json" with { type: "json" };
import { create{{pascal}}Provider } from "./gen/{{name}}/v1/{{name}}_tool.js";
import { handlers } from "./handlers.js";

// Describe reports package.json's version (bundled into dist/provider.mjs at build time). A
// relative root is taken from the working directory (dev-config.json's "." is the repository
// when `npm run check` runs in it); the runtime itself takes absolute roots only.
const allowedRoots = (config: { roots: readonly string[] }) => config.roots.map((root) => path.resolve(root));

// Configure refuses a root that is not a folder here, naming it, before any tool runs: the
// operator's typo fails at start-up, not at the model's first call.
async function configure(config: { roots: readonly string[] }): Promise<void> {
  for (const [index, root] of config.roots.entries()) {
    const found = await stat(path.resolve(root)).catch(() => undefined);
    if (!found?.isDirectory()) throw configError(`/roots/${index}`, `${JSON.stringify(root)} is not a folder (${path.resolve(root)}): create it or name another`);
  }
}

await serve(create{{pascal}}Provider(handlers, { version: packageJson.version, allowedRoots, configure }));
