// `npm run quickstart -- <dir>`: a new provider repository in <dir>, built and ready for its first
// call, from this checkout (harness-tool is not on the npm registry yet). It packs the three
// packages into `harness-tool-packages/` beside <dir>, runs this checkout's `harness-tool init`
// with them (the repository names them relative to itself, so it can be moved with them), then in
// <dir> `npm install`, `npm run generate` and `npm run build`, and prints the first call to make.
// Each step is printed before it runs; the first that fails stops the rest with its output.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const checkout = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// npm runs scripts in the package's folder; INIT_CWD is where `npm run` was typed.
const typedIn = process.env.INIT_CWD ?? process.cwd();
const [given, ...extra] = process.argv.slice(2);

if (given === undefined || given.startsWith("-") || extra.length > 0) {
  console.error("npm run quickstart: name the new repository's folder, e.g. npm run quickstart -- ../notes");
  process.exit(2);
}
const target = path.resolve(typedIn, given);
if (existsSync(target) && readdirSync(target).length > 0) {
  console.error(`npm run quickstart: ${target} is not empty: name a new folder`);
  process.exit(2);
}
const parent = path.dirname(target);
const packages = path.join(parent, "harness-tool-packages");
const started = performance.now();
mkdirSync(packages, { recursive: true });

/** No step takes this long on a working machine: npm retrying a registry it cannot reach does. */
const stepTimeoutMs = 10 * 60_000;

/** Why a step failed, in a few words. */
function why(run) {
  if (run.error?.code === "ETIMEDOUT") return `still running after ${stepTimeoutMs / 60_000} minutes: stopped`;
  return run.error?.message ?? `exit ${run.status ?? run.signal}`;
}

/** Runs one step, printed first, for at most stepTimeoutMs; exits when it fails. */
function step(shown, command, args, cwd, quiet = false) {
  console.log(`\n> ${shown}`);
  const began = performance.now();
  const run = spawnSync(command, args, {
    cwd,
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    encoding: "utf8",
    timeout: stepTimeoutMs,
  });
  if (run.status !== 0) {
    if (quiet) process.stderr.write(`${run.stdout}${run.stderr}`);
    console.error(
      `npm run quickstart: ${shown} failed (${why(run)}): fix what it printed above (a registry npm cannot reach?) and run it again`,
    );
    process.exit(1);
  }
  console.log(`(${((performance.now() - began) / 1000).toFixed(1)} s)`);
}

step(
  `npm run pack:all -- --pack-destination ${packages}   (builds and packs harness-tool's three packages)`,
  "npm",
  ["run", "pack:all", "--", "--pack-destination", packages],
  checkout,
  true,
);
step(
  `harness-tool init ${path.basename(target)} --yes --harness-tool file:./harness-tool-packages   (in ${parent})`,
  process.execPath,
  [
    path.join(checkout, "cli/harness-tool.mjs"),
    "init",
    path.basename(target),
    "--yes",
    "--harness-tool",
    "file:./harness-tool-packages",
  ],
  parent,
);
for (const script of ["install", "run generate", "run build"])
  step(`npm ${script}   (in ${target})`, "npm", script.split(" "), target);

const shown = path.relative(typedIn, target) || ".";
console.log(`
Ready in ${((performance.now() - started) / 1000).toFixed(0)} s. The first call:

  cd ${shown}
  npx harness-tool invoke dist/provider.mjs read_note --config dev-config.json --args '{"title": "hello"}'

Then ${path.join(shown, "README.md")}: the tools are in proto/, their handlers in src/handlers.ts.`);
