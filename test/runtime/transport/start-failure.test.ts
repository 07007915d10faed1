/**
 * Start failures as a go-plugin host shows them: the reason in the one stdout line (go-plugin
 * v1.8.0 puts it into its launch error) and an error-level log line with the stack on stderr,
 * for a throw before serve() as for serve()'s own refusals.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { parseHostLogLine } from "harness-tool/testing";
import { kernelHandshake } from "../../../runtime/transport/plugin-environment.js";
import { startFailureLine } from "../../../runtime/transport/start-failure.js";
import { typeScriptProvider } from "../interop/providers.js";

const loaderArgs = typeScriptProvider("x", "test/runtime/transport/fixtures/sample-provider.ts").args.slice(0, 3);
const cookie = { [kernelHandshake.cookieKey]: kernelHandshake.cookieValue };

/** Runs an ES module snippet the way a provider runs, with or without the host's cookie. */
function runModule(source: string, env: NodeJS.ProcessEnv) {
  const { [kernelHandshake.cookieKey]: _inherited, ...base } = process.env;
  return spawnSync(process.execPath, [...loaderArgs, "--input-type=module", "-e", source], {
    encoding: "utf8",
    env: { ...base, ...env },
  });
}

test("the stdout line: one line, no `|`, bounded, saying the provider cannot start", () => {
  assert.equal(
    startFailureLine("a|b|c|d\n  second line"),
    "harness-tool: the provider cannot start: a/b/c/d; second line\n",
  );
  const long = startFailureLine("x".repeat(10_000));
  assert.ok(long.length <= 2001 && long.endsWith("…\n"), `${long.length} characters`);
  assert.equal(long.split("\n").length, 2);
});

test("launched by a host, a throw before serve() is a start failure: the reason on stdout, the stack at error on stderr, exit 1", () => {
  const run = runModule(`import "harness-tool"; throw new Error("the database | is unreachable");`, cookie);
  assert.equal(run.status, 1);
  assert.equal(run.stdout, "harness-tool: the provider cannot start: the database / is unreachable\n");
  const lines = run.stderr.trim().split("\n").map(parseHostLogLine);
  assert.equal(lines.length, 1, run.stderr);
  assert.equal(lines[0]?.level, "error");
  assert.equal(lines[0]?.message, "the database | is unreachable");
  assert.match(String(lines[0]?.fields.error), /^Error: the database \| is unreachable\n\s+at /);
});

test("a rejected top-level await and a thrown non-Error are start failures too", () => {
  const rejected = runModule(
    `import "harness-tool"; await Promise.reject(new TypeError("config.port must be a number"));`,
    cookie,
  );
  assert.equal(rejected.status, 1);
  assert.equal(rejected.stdout, "harness-tool: the provider cannot start: TypeError: config.port must be a number\n");
  const thrown = runModule(`import "harness-tool"; throw "plain string";`, cookie);
  assert.equal(thrown.status, 1);
  assert.equal(thrown.stdout, "harness-tool: the provider cannot start: plain string\n");
});

test("process.exit during start-up, or an entry point that never calls serve(): the exit is reported as a start failure", () => {
  const exited = runModule(`import "harness-tool"; process.exit(3);`, cookie);
  assert.equal(exited.status, 3);
  assert.match(
    exited.stdout,
    /^harness-tool: the provider cannot start: the process exited with code 3 before serve\(\) made the handshake/,
  );
  assert.equal(parseHostLogLine(exited.stderr.trim()).level, "error");
  const neverServed = runModule(`import "harness-tool";`, cookie);
  assert.equal(neverServed.status, 0);
  assert.match(neverServed.stdout, /the process exited with code 0 before serve\(\) made the handshake/);
});

test("without the host's cookie importing harness-tool changes nothing: Node reports the exception itself", () => {
  const run = runModule(
    `import "harness-tool"; console.log(process.listenerCount("uncaughtException")); throw new Error("by hand");`,
    {},
  );
  assert.equal(run.status, 1);
  assert.equal(run.stdout, "0\n");
  assert.match(run.stderr, /Error: by hand/);
});

test("one guard per process however many copies arm it; once disarmed, no copy arms it again", () => {
  const run = runModule(
    `import { armStartFailureGuard, disarmStartFailureGuard } from "${new URL("../../../runtime/transport/start-failure.ts", import.meta.url).href}";
     await import("harness-tool");
     armStartFailureGuard();
     const armed = process.listenerCount("uncaughtException");
     const exitArmed = process.listenerCount("exit");
     disarmStartFailureGuard();
     armStartFailureGuard();
     process.stderr.write(JSON.stringify([armed, process.listenerCount("uncaughtException"), exitArmed - process.listenerCount("exit")]));`,
    cookie,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "");
  assert.equal(run.stderr, "[1,0,1]");
});
