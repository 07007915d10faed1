#!/usr/bin/env node
// Regenerates test/plugin/golden/ from test/plugin/protos/good (what good-protos.test.ts compares).
// Run from the repository root: node test/plugin/update-golden.mjs
import { spawnSync } from "node:child_process";
const result = spawnSync(process.execPath, ["node_modules/tsx/dist/cli.mjs", "test/plugin/support/write-golden.ts"], {
  stdio: "inherit",
});
process.exit(result.status ?? 1);
