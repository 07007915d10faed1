#!/usr/bin/env node
// `npm run soak`: the long versions of the reliability suite. Runs every soak/**/*.soak.ts on
// Node's test runner through tsx, one file at a time (they load the machine on purpose), with
// `harness-tool` resolved to this checkout's sources in every process they start.
// Arguments are passed on, e.g. `npm run soak -- --test-name-pattern=wire`.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const soakDir = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(soakDir);

function collect(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.isDirectory()) found.push(...collect(path.join(dir, entry.name)));
    else if (entry.name.endsWith(".soak.ts")) found.push(path.relative(root, path.join(dir, entry.name)));
  }
  return found;
}

const files = collect(soakDir);
const tsx = path.join(root, "node_modules/tsx/dist/cli.mjs");
const nodeOptions = [process.env.NODE_OPTIONS, "--conditions=harness-tool-source"].filter(Boolean).join(" ");
const result = spawnSync(
  process.execPath,
  [tsx, "--test", "--test-concurrency=1", ...process.argv.slice(2), ...files],
  {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  },
);
process.exit(result.status ?? 1);
