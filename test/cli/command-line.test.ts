// The CLI's command line: every command's --help (snapshots at 80 and 100 columns, every line
// within the width), --version, and a clear message with exit 2 for each kind of usage mistake.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseCommandLine } from "../../cli/commands/command-line.js";
import { commands } from "../../cli/main.js";
import { repoRoot } from "../support/buf.js";
import { cli } from "./support/run-cli.js";
import { assertSnapshot, widestLine } from "../support/output-snapshot.js";

/** Splits an example command line into arguments the way a POSIX shell would (quotes only). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

describe("harness-tool --help", () => {
  for (const columns of [80, 100]) {
    it(`lists every command, within ${columns} columns`, async () => {
      const { code, out } = await cli(["--help"], columns);
      assert.equal(code, 0);
      for (const c of commands) assert.match(out, new RegExp(`^  ${c.name}\\s+\\S`, "m"));
      assert.ok(widestLine(out) <= columns, out);
      assertSnapshot(`help-${columns}`, out);
    });
    for (const command of commands) {
      it(`${command.name} --help: usage, every flag, examples, within ${columns} columns`, async () => {
        const { code, out, err } = await cli([command.name, "--help"], columns);
        assert.equal(code, 0, err);
        assert.match(out, new RegExp(`^Usage: harness-tool ${command.name} `));
        for (const flag of Object.keys(command.flags)) assert.match(out, new RegExp(`--${flag}\\b`));
        assert.match(out, /^Examples:\n {2}harness-tool /m);
        assert.ok(widestLine(out) <= columns, `a line is wider than ${columns} columns:\n${out}`);
        assertSnapshot(`${command.name.replace(/ /g, "-")}-help-${columns}`, out);
      });
    }
  }

  it("is the same for -h, help <command>, and --help after other arguments", async () => {
    const expected = (await cli(["invoke", "--help"])).out;
    assert.equal((await cli(["invoke", "-h"])).out, expected);
    assert.equal((await cli(["help", "invoke"])).out, expected);
    assert.equal((await cli(["invoke", "dist/provider.mjs", "read_note", "--help"])).out, expected);
  });

  it("help <two words> gives a two-word command's help: help mcp import, help mcp serve", async () => {
    for (const name of ["mcp import", "mcp serve"]) {
      const expected = await cli([...name.split(" "), "--help"]);
      assert.match(expected.out, new RegExp(`^Usage: harness-tool ${name} `));
      const help = await cli(["help", ...name.split(" ")]);
      assert.equal(help.code, 0, help.err);
      assert.equal(help.out, expected.out);
    }
  });

  it("without a command: the overview on stderr, exit 2", async () => {
    const { code, out, err } = await cli([]);
    assert.equal(code, 2);
    assert.equal(out, "");
    assert.match(err, /^Commands:/m);
  });

  it("every example in every command's help parses against the command's own declaration", () => {
    for (const command of commands) {
      for (const example of command.examples) {
        // A command's name may be two words (`mcp import`).
        const words = command.name.split(" ").length;
        const [program, ...rest] = shellWords(example);
        const [name, args] = [rest.slice(0, words).join(" "), rest.slice(words)];
        assert.equal(`${program} ${name}`, `harness-tool ${command.name}`, example);
        assert.doesNotThrow(() => parseCommandLine(command, args), example);
      }
    }
  });
});

describe("what the help says is true", () => {
  it("check --help's --args-file example gives the scaffold's save_note only fields its request has", async () => {
    const { out } = await cli(["check", "--help"], 400);
    const example = /(\{"save_note": \{[^}]*\}\})/.exec(out)?.[1];
    assert.ok(example, out);
    const fields = Object.keys((JSON.parse(example) as { save_note: object }).save_note);
    const proto = readFileSync(path.join(repoRoot, "cli/templates/example-tools/resource/messages.proto"), "utf8");
    const request = /message SaveNoteRequest \{([^}]*)\}/.exec(proto)?.[1] ?? "";
    const declared = [...request.matchAll(/^\s*\w+ (\w+) = \d+;/gm)].map((m) => m[1]);
    assert.ok(fields.length > 0);
    for (const field of fields)
      assert.ok(declared.includes(field), `save_note has no field ${field} (it has ${declared.join(", ")})`);
  });

  it("README's table names every exit code invoke's and check's help name", () => {
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    const codes = (text: string) => [...text.matchAll(/\b(\d{1,3})\b/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    for (const name of ["invoke", "check"]) {
      const description = commands.find((c) => c.name === name)?.description ?? "";
      const helpSentence = description.slice(description.search(/\bexit (codes:|\d)/i)).split("\n\n")[0] ?? "";
      const row = readme.split("\n").find((line) => line.startsWith(`| \`npx harness-tool ${name} `)) ?? "";
      const readmeSentence = row.slice(row.search(/\bexit \d/));
      assert.ok(helpSentence !== "" && readmeSentence !== "", name);
      assert.deepEqual(
        codes(readmeSentence),
        codes(helpSentence),
        `${name}: README says ${readmeSentence}; --help says ${helpSentence}`,
      );
    }
  });

  it("every sentence of the overview ends: no option text stops at a dangling possessive", async () => {
    const { out } = await cli(["--help"], 400);
    for (const line of out.split("\n")) assert.doesNotMatch(line, /'s$/, line);
  });
});

describe("harness-tool --version", () => {
  it("prints package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, "cli/package.json"), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-v"])
      assert.deepEqual(await cli([flag]), { code: 0, out: `${version}\n`, err: "" });
  });
});

describe("usage mistakes: one clear message, exit 2", () => {
  const cases: [string, string[], RegExp][] = [
    [
      "a mistyped command",
      ["invok"],
      /^harness-tool: unknown command "invok"; did you mean invoke\?\n\(see harness-tool --help\)\n$/,
    ],
    [
      "an unknown command",
      ["frobnicate"],
      /^harness-tool: unknown command "frobnicate"\n\(see harness-tool --help\)\n$/,
    ],
    [
      "an unknown option near one it takes",
      ["invoke", "p", "t", "--args", "{}", "--arg", "x"],
      /^harness-tool invoke: unknown option --arg; did you mean --args\?\n\(see harness-tool invoke --help\)\n$/,
    ],
    [
      "an unknown option",
      ["schema", "p", "--pretty"],
      /^harness-tool schema: unknown option --pretty; it takes --json, --timeout\n\(see harness-tool schema --help\)\n$/,
    ],
    [
      "a flag without its value",
      ["invoke", "p", "t", "--args"],
      /^harness-tool invoke: --args needs a value: --args <json>\n/,
    ],
    ["a value for a boolean flag", ["schema", "p", "--json=yes"], /^harness-tool schema: --json takes no value\n/],
    [
      "a flag given twice",
      ["invoke", "p", "t", "--args", "{}", "--args", "{}"],
      /^harness-tool invoke: --args was given twice\n/,
    ],
    [
      "invoke without --args",
      ["invoke", "p", "t"],
      /^harness-tool invoke: --args <json> is required: the tool's arguments, a JSON object \('\{\}' for none\)\n/,
    ],
    [
      "invoke without a tool",
      ["invoke", "p", "--args", "{}"],
      /^harness-tool invoke: missing <tool>: harness-tool invoke <provider> <tool> --args <json>\n/,
    ],
    [
      "an extra positional",
      ["schema", "p", "q"],
      /^harness-tool schema: unexpected argument "q" \(arguments for the provider go after --\)\n/,
    ],
    [
      "invoke with --cwd that does not exist",
      ["invoke", "p", "t", "--args", "{}", "--cwd", "/nonexistent/dir"],
      /^harness-tool invoke: --cwd \/nonexistent\/dir: no such directory\n$/,
    ],
    [
      "check with --cwd that is a file",
      ["check", "p", "--cwd", path.join(repoRoot, "package.json")],
      /^harness-tool check: --cwd \S+package\.json is not a directory\n$/,
    ],
    [
      "hook at a point that does not exist",
      ["hook", "p", "plan_ready", "--mode", "veto", "--payload", "p.json"],
      /^harness-tool hook: no hook point "plan_ready"; did you mean plan-ready\?\n\(see harness-tool hook --help\)\n$/,
    ],
    [
      "hook in a mode that does not exist",
      ["hook", "p", "plan-ready", "--mode", "deny", "--payload", "p.json"],
      /^harness-tool hook: --mode "deny": choose observe, transform or veto\n$/,
    ],
    [
      "hook without --mode",
      ["hook", "p", "plan-ready", "--payload", "p.json"],
      /^harness-tool hook: --mode <observe\|transform\|veto> is required/,
    ],
    [
      "hook with a --payload file that does not exist",
      ["hook", "p", "plan-ready", "--mode", "veto", "--payload", "/nonexistent/plan.json"],
      /^harness-tool hook: --payload \/nonexistent\/plan\.json does not exist\n$/,
    ],
    [
      "hook with a --timeout that is not milliseconds",
      ["hook", "p", "plan-ready", "--mode", "veto", "--payload", "p.json", "--timeout", "2s"],
      /^harness-tool hook: --timeout 2s: give the deadline in milliseconds, e.g. --timeout 5000\n$/,
    ],
    [
      "init with the hook example alone",
      ["init", "/nonexistent/notes", "--examples", "hook", "--yes"],
      /^harness-tool init: --examples hook: hook needs a tool beside it: add one, e.g. data_source\n$/,
    ],
    ["bad JSON in --args", ["invoke", "p", "t", "--args", "{nope"], /^harness-tool invoke: --args is not JSON: /],
    [
      "help for a command that does not exist",
      ["help", "nope"],
      /^harness-tool: no command "nope"\n\(see harness-tool --help\)\n$/,
    ],
  ];
  for (const [what, argv, message] of cases) {
    it(what, async () => {
      const { code, out, err } = await cli(argv);
      assert.equal(code, 2, err);
      assert.equal(out, "");
      assert.match(err, message);
      assert.doesNotMatch(err, /\n\s+at /, "no stack trace");
      assert.ok((err.split("\n")[0] ?? "").length <= 100, `wider than 100 columns: ${err}`);
    });
  }
});
