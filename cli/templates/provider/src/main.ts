#!/usr/bin/env node
// The provider's executable: the kernel starts it directly (no shell, no npx) and talks to it
// through go-plugin. Nothing but the handshake line may go to stdout; console output goes to stderr.
import { serve } from "harness-tool";
import packageJson from "../package.json" with { type: "json" };
import { create{{pascal}}Provider } from "./gen/{{name}}/v1/{{name}}_tool.js";
import { handlers } from "./handlers.js";

// Describe reports package.json's version (bundled into dist/provider.mjs at build time).
await serve(create{{pascal}}Provider(handlers, { version: packageJson.version, allowedRoots: (config) => config.roots }));
