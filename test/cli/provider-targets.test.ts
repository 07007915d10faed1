// One rule for `<provider>` in every command (cli/provider/provider-target.ts): schema, invoke,
// check and inspect each accept a provider folder holding src/main.ts and a TypeScript entry (run
// through tsx), beside an executable; a non-executable JavaScript entry is started with Node.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CommandDefinition } from "../../cli/commands/command-definition.js";
import { inspectCommand } from "../../cli/commands/inspect-command.js";
import { commands } from "../../cli/main.js";
import { ProviderLaunchError, providerTarget } from "../../cli/provider/provider-target.js";
import { repoRoot } from "../support/buf.js";
import { captureStream } from "../support/captured-stream.js";
import { cli } from "./support/run-cli.js";

const folder = path.join(repoRoot, "test/cli/fixtures/provider-folder");
const tsEntry = path.join(repoRoot, "test/cli/fixtures/streaming-provider.ts");
const targets: [string, string][] = [
  ["a provider folder holding src/main.ts", folder],
  ["a .ts entry", tsEntry],
];

describe("providerTarget: what <provider> names", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-targets-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("starts a folder's src/main.ts and a .ts entry with Node through tsx, the provider's arguments last", () => {
    for (const target of [folder, tsEntry]) {
      const command = providerTarget(target, ["--verbose"]);
      assert.equal(command.command, process.execPath);
      assert.match(command.args.join(" "), /--import file:\/\/\S+tsx\/dist\/esm\/index\.mjs \S+\.ts --verbose$/);
      // In this checkout the provider's harness-tool resolves to the runtime's sources.
      assert.equal(command.args[0], "--conditions=harness-tool-source");
    }
    assert.match(providerTarget(folder).args.join(" "), /provider-folder\/src\/main\.ts$/);
  });

  it("starts an executable as it is, a JavaScript entry that is not executable with Node, and looks bare names up on PATH", () => {
    const executable = path.join(dir, "provider.mjs");
    writeFileSync(executable, "#!/usr/bin/env node\n");
    chmodSync(executable, 0o755);
    assert.deepEqual(providerTarget(executable, ["-v"]), { command: executable, args: ["-v"] });
    const plain = path.join(dir, "plain.mjs");
    writeFileSync(plain, "export {};\n");
    assert.deepEqual(providerTarget(plain), { command: process.execPath, args: [plain] });
    assert.deepEqual(providerTarget("some-provider-on-path"), { command: "some-provider-on-path", args: [] });
  });

  it("refuses a missing file and a folder without an entry before launching, as launch problems (exit 2)", () => {
    assert.throws(
      () => providerTarget(path.join(dir, "nope.ts")),
      (e: unknown) => e instanceof ProviderLaunchError && /nope\.ts does not exist/.test(e.message),
    );
    assert.throws(
      () => providerTarget(dir),
      (e: unknown) => e instanceof ProviderLaunchError && /is a folder without a provider entry/.test(e.message),
    );
  });
});

describe("every command takes the same provider targets", () => {
  for (const [what, target] of targets) {
    it(`schema: ${what}`, async () => {
      const { code, out, err } = await cli(["schema", target]);
      assert.equal(code, 0, err);
      assert.match(out, /^count\s/m);
    });

    it(`invoke: ${what}`, async () => {
      const { code, out, err } = await cli(["invoke", target, "count", "--args", '{"to": 2}']);
      assert.equal(code, 0, err);
      assert.match(out, /"counted": 2/);
    });

    it(`check: ${what}`, async () => {
      const { code, out, err } = await cli(["check", target, "--json"]);
      assert.notEqual(code, 2, err);
      const rows = JSON.parse(out) as { rule: string; status: string }[];
      assert.equal(rows.find((r) => r.rule === "handshake.line")?.status, "pass", out);
      assert.equal(rows.find((r) => r.rule === "shutdown.graceful")?.status, "pass", out);
    });

    it(`inspect: ${what}`, async () => {
      const stop = new AbortController();
      const out = captureStream();
      const err = captureStream();
      let ready!: (url: string) => void;
      const url = new Promise<string>((resolve) => (ready = resolve));
      const done = inspectCommand({ target, config: undefined, port: undefined, cwd: undefined }, [], {
        out: out.stream,
        err: err.stream,
        stop: stop.signal,
        onReady: ready,
      });
      try {
        const served = await Promise.race([
          url,
          done.then((code) => Promise.reject(new Error(`inspect ended with ${code}: ${err.text()}`))),
        ]);
        const state = (await (await fetch(new URL("api/state", served))).json()) as { tools: { name: string }[] };
        assert.ok(
          state.tools.some((t) => t.name === "count"),
          JSON.stringify(state.tools),
        );
      } finally {
        stop.abort();
      }
      assert.equal(await done, 0, err.text());
    });
  }
});

describe("every command that takes a <provider> reads it by the one rule (commands added later too)", () => {
  const takesProvider = commands.filter((c) => c.positionals.some((p) => p.name === "provider"));
  /** The command's line with `target` as its provider, placeholders for its other positionals and required flags. */
  const argvFor = (command: CommandDefinition, target: string): string[] => [
    command.name,
    ...command.positionals.map((p) => (p.name === "provider" ? target : "placeholder")),
    ...Object.entries(command.flags).flatMap(([name, flag]) =>
      flag.type === "string" && flag.required ? [`--${name}`, "{}"] : [],
    ),
  ];

  it("schema, invoke, check and inspect are among them", () => {
    for (const name of ["schema", "invoke", "check", "inspect"])
      assert.ok(
        takesProvider.some((c) => c.name === name),
        name,
      );
  });

  for (const command of takesProvider) {
    it(`${command.name}: a missing .ts entry and a folder without an entry, refused as cli/provider/ words them (exit 2)`, async () => {
      const missing = await cli(argvFor(command, "no-such-entry.ts"));
      assert.equal(missing.code, 2, missing.err);
      assert.equal(
        missing.err,
        `harness-tool ${command.name}: cannot launch the provider: no-such-entry.ts does not exist\n`,
      );
      const folder = await cli(argvFor(command, "docs"));
      assert.equal(folder.code, 2, folder.err);
      assert.match(
        folder.err,
        new RegExp(
          `^harness-tool ${command.name}: cannot launch the provider: docs is a folder without a provider entry \\(looked for src/main\\.ts`,
        ),
      );
    });
  }
});
