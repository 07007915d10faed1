#!/usr/bin/env node
// The provider's executable: the kernel starts it directly (no shell, no npx) and talks to it
// through go-plugin. Nothing but the handshake line may go to stdout; console output goes to stderr.
import path from "node:path";
import { serve } from "harness-tool";
import packageJson from "../package.json" with { type: "json" };
import { create{{pascal}}Provider } from "./gen/{{name}}/v1/{{name}}_tool.js";
import { handlers } from "./handlers.js";

// Describe reports package.json's version (bundled into dist/provider.mjs at build time). A
// relative root is taken from the working directory (dev-config.json's "." is the repository
// when `npm run check` runs in it); the runtime itself takes absolute roots only.
const allowedRoots = (config: { roots: readonly string[] }) => config.roots.map((root) => path.resolve(root));
await serve(create{{pascal}}Provider(handlers, { version: packageJson.version, allowedRoots }));
