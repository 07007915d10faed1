// Invoke: a thrown ToolError keeps its category; anything else thrown becomes unknown with the raw
// error in details (name, message, code; the author's machine paths reduced, never the stack, which
// goes to the log); process_crashed cannot be constructed; an Error.prepareStackTrace a dependency
// broke (the `bindings` loader bundled into an ES module) still ends the call, with its error.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolErrorCategory } from "../../../generated/pluggableharness/tool/v1/tool_pb.js";
import { ToolError } from "../../../runtime/index.js";
import { createToolService } from "../../../runtime/service/calls/index.js";
import { toolErrorCategoryNames } from "../../../runtime/errors/index.js";
import { existsSync } from "node:fs";
import path from "node:path";
import { reduceMachinePaths, setMachinePathRoots } from "../../../runtime/errors/machine-paths.js";
import { echo, providerWith } from "./support/sample-tools.js";
import { invokeRequest, onlyTerminal, recordingSink } from "./support/recording-sink.js";

async function terminalOf(handler: (input: any, ctx: any) => unknown, stderr: (line: string) => void = () => {}) {
  const service = createToolService(providerWith(echo, handler as never), { stderr });
  const rec = recordingSink();
  await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
  const t = onlyTerminal(rec);
  assert.equal(t.case, "error");
  return t.value;
}

describe("Invoke errors", () => {
  for (const [i, category] of toolErrorCategoryNames.entries()) {
    it(`a thrown ToolError ${category} keeps its category, message, retryable and details`, async () => {
      const error = await terminalOf(async () => {
        // invalid_arguments is never retryable (ToolError refuses the contradiction).
        const retryable = category !== "invalid_arguments";
        throw new ToolError(category, `failed as ${category}`, { retryable, details: { n: i } });
      });
      const wire = ToolErrorCategory[category.toUpperCase() as keyof typeof ToolErrorCategory];
      assert.equal(error.category, wire);
      assert.equal(error.message, `failed as ${category}`);
      assert.equal(error.retryable, category !== "invalid_arguments");
      assert.deepEqual(error.details, { n: i });
    });
  }

  it("a thrown plain Error becomes unknown with its name, message and code in details; its stack goes to the log only", async () => {
    const lines: string[] = [];
    const error = await terminalOf(
      async () => {
        const e = new RangeError("disk on fire") as RangeError & { code: string };
        e.code = "EFIRE";
        throw e;
      },
      (line) => lines.push(line),
    );
    assert.equal(error.category, ToolErrorCategory.UNKNOWN);
    assert.match(error.message, /disk on fire/);
    assert.deepEqual(error.details?.["error"], { name: "RangeError", message: "disk on fire", code: "EFIRE" });
    assert.doesNotMatch(JSON.stringify(error.details), /\bat |stack/);
    const logged = lines.map(
      (line) => JSON.parse(line) as { "@level": string; "@message": string; tool: string; stack: string },
    );
    assert.equal(logged.length, 1, lines.join("\n"));
    assert.equal(logged[0]?.["@level"], "error");
    assert.equal(logged[0]?.["@message"], "echo failed: disk on fire");
    assert.equal(logged[0]?.tool, "echo");
    assert.match(logged[0]?.stack ?? "", /^RangeError: disk on fire\n\s+at /);
  });

  it("the author's absolute paths are reduced in the message and details: packages, the provider's folder, the home directory", async () => {
    setMachinePathRoots({ provider: "/home/ada/notes", home: "/home/ada" });
    try {
      const error = await terminalOf(async () => {
        const cause = new Error("ENOENT: no such file, open '/home/ada/notes/data/notes.db'");
        throw new TypeError(
          "cannot open /home/ada/notes/node_modules/better-sqlite3/build/Release/better_sqlite3.node from file:///home/ada/notes/dist/provider.bundle.mjs, see /home/ada/.npmrc or /srv/shared/db",
          { cause },
        );
      });
      const expected =
        "cannot open node_modules/better-sqlite3/build/Release/better_sqlite3.node from <provider>/dist/provider.bundle.mjs, see ~/.npmrc or /srv/shared/db";
      assert.equal(error.message, `echo failed: ${expected}`);
      const raw = error.details?.["error"] as { message: string; cause: { message: string } };
      assert.equal(raw.message, expected);
      assert.equal(raw.cause.message, "ENOENT: no such file, open '<provider>/data/notes.db'");
      assert.doesNotMatch(JSON.stringify(error), /\/home\/ada/);
      const coded = await terminalOf(async () => {
        throw Object.assign(new Error("spawn failed"), { code: "ENOENT /home/ada/notes/bin/helper" });
      });
      assert.deepEqual(coded.details, {
        error: { name: "Error", message: "spawn failed", code: "ENOENT <provider>/bin/helper" },
      });
      const thrownString = await terminalOf(async () => {
        throw "cannot read /home/ada/secrets.txt";
      });
      assert.deepEqual(thrownString.details, { error: { type: "string", value: "cannot read ~/secrets.txt" } });
    } finally {
      setMachinePathRoots(undefined);
    }
  });

  it("the provider's folder is the nearest one with a package.json above the entry (process.argv[1])", () => {
    setMachinePathRoots(undefined);
    try {
      const entry = process.argv[1] ?? "";
      assert.ok(path.isAbsolute(entry), entry);
      let folder = path.dirname(entry);
      while (!existsSync(path.join(folder, "package.json"))) folder = path.dirname(folder);
      assert.equal(
        reduceMachinePaths(`open ${path.join(folder, "data", "notes.db")} failed`),
        "open <provider>/data/notes.db failed",
      );
      const unchanged = "a JSON pointer /db_path, a relative a/b, /srv/db and https://unpkg.com/node_modules/x stay";
      assert.equal(reduceMachinePaths(unchanged), unchanged);
    } finally {
      setMachinePathRoots(undefined);
    }
  });

  it("an Error.prepareStackTrace that throws (a bundled `bindings` loader) cannot hang the call: it ends with the error, the log says why", {
    timeout: 10_000,
  }, async () => {
    const saved = Error.prepareStackTrace;
    const lines: string[] = [];
    try {
      const error = await terminalOf(
        async () => {
          // What the `bindings` package does bundled into an ES module: its stack hook reads `__filename`.
          Error.prepareStackTrace = () => {
            throw new ReferenceError("__filename is not defined");
          };
          const probe: { stack?: string } = {};
          Error.captureStackTrace(probe);
          return probe.stack;
        },
        (line) => lines.push(line),
      );
      assert.equal(error.category, ToolErrorCategory.UNKNOWN);
      assert.equal(error.message, "echo failed: __filename is not defined");
      assert.deepEqual(error.details?.["error"], { name: "ReferenceError", message: "__filename is not defined" });
      assert.match(
        lines.join("\n"),
        /reading it threw, as every stack does once a dependency replaced Error\.prepareStackTrace/,
      );
    } finally {
      Error.prepareStackTrace = saved;
    }
  });

  it("a synchronous throw, a thrown string and a thrown object are all unknown", async () => {
    const sync = await terminalOf(() => {
      throw new Error("sync");
    });
    assert.equal(sync.category, ToolErrorCategory.UNKNOWN);
    const str = await terminalOf(async () => {
      throw "just a string";
    });
    assert.deepEqual(str.details, { error: { type: "string", value: "just a string" } });
    const obj = await terminalOf(async () => {
      throw { weird: 1n };
    });
    assert.deepEqual(obj.details, { error: { type: "object", value: { weird: "1" } } });
  });

  it("process_crashed cannot be constructed, and a forged one is not passed through", async () => {
    assert.throws(() => new ToolError("process_crashed" as never, "x"), TypeError);
    const forged = Object.assign(new Error("forged"), { name: "ToolError", category: "process_crashed" });
    const error = await terminalOf(async () => {
      throw forged;
    });
    assert.equal(error.category, ToolErrorCategory.UNKNOWN);
    assert.notEqual(error.category, ToolErrorCategory.PROCESS_CRASHED);
  });

  it("a validator that throws is a provider bug, reported as unknown", async () => {
    const provider = providerWith(echo, async (i) => i);
    const broken = {
      ...provider,
      tools: [
        {
          ...provider.tools[0]!,
          validateInput: () => {
            throw new Error("validator broke");
          },
        },
      ],
    };
    const service = createToolService(broken, { stderr: () => {} });
    const rec = recordingSink();
    await service.invoke(invokeRequest("echo", { text: "a" }), rec.sink);
    const t = onlyTerminal(rec);
    assert.equal(t.case === "error" && t.value.category, ToolErrorCategory.UNKNOWN);
  });
});
