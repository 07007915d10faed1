// `harness-tool inspect` on bad input: a clear usage or launch error (exit 2), never a stack
// trace, and no server left behind.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { it } from "node:test";
import { providerTarget } from "../../cli/provider/provider-target.js";
import { repoRoot } from "../support/buf.js";
import { cli } from "./support/run-cli.js";

it("is listed in --help and has its own", async () => {
  assert.match((await cli(["--help"])).out, /^ {2}inspect +serve a local web page/m);
  const help = await cli(["inspect", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: harness-tool inspect <provider> \[options\] \[-- <provider args>\]/);
  assert.match(help.out, /--config <file\.json>/);
  assert.match(help.out, /--port <N>/);
});

it("explains its usage without a provider, with a bad --port, a missing or unreadable config", async () => {
  const none = await cli(["inspect"]);
  assert.equal(none.code, 2);
  assert.match(none.err, /^harness-tool inspect: missing <provider>/);
  const port = await cli(["inspect", "examples/exec", "--port", "http"]);
  assert.equal(port.code, 2);
  assert.match(port.err, /--port must be a port number/);
  const config = await cli(["inspect", "examples/exec", "--config", "/nonexistent/config.json"]);
  assert.equal(config.code, 2);
  assert.match(config.err, /--config \/nonexistent\/config\.json does not exist/);
  const folder = await cli(["inspect", "docs"]);
  assert.equal(folder.code, 2);
  assert.match(folder.err, /docs is a folder without a provider entry/);
});

it("reports a provider that cannot start as a launch problem (exit 2) saying what is wrong, no stack trace", async () => {
  const missing = await cli(["inspect", "/nonexistent/provider"]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /cannot launch the provider: \/nonexistent\/provider does not exist/);
  assert.doesNotMatch(missing.err, /\n\s+at /);
});

it("starts a folder's src/main.ts and a TypeScript file through tsx, and a bare name as it is (test/cli/provider-targets.test.ts has the whole rule)", () => {
  const folder = providerTarget("examples/exec", ["--verbose"]);
  assert.equal(folder.command, process.execPath);
  assert.match(
    folder.args.join(" "),
    /--import file:\/\/\S+tsx\/dist\/esm\/index\.mjs \S+examples\/exec\/src\/main\.ts --verbose$/,
  );
  assert.deepEqual(providerTarget("provider-on-path", []), { command: "provider-on-path", args: [] });
  assert.equal(providerTarget("examples/exec/src/main.ts", []).command, process.execPath);
});

it("says so when --port is taken", async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
  const port = (blocker.address() as AddressInfo).port;
  try {
    const taken = await cli([
      "inspect",
      path.join(repoRoot, "test/cli/fixtures/streaming-provider.ts"),
      "--port",
      String(port),
    ]);
    assert.equal(taken.code, 2);
    assert.match(taken.err, new RegExp(`port ${port} is in use; pick another with --port`));
  } finally {
    blocker.close();
  }
});
