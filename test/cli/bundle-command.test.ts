// `harness-tool bundle`: the executable, the bundle and its source map, and stack traces from the
// bundled provider that name the source file and line rather than the bundle's. The executable
// decides supervision before it loads the bundle, with harness-tool's supervisor inlined, only for
// a provider that serves through harness-tool (supervisor-wire.test.ts launches it); with the
// platform's supervisor package installed (the test run installs it), it carries that program
// beside it and, launched by a host, sh starts the program before any Node.
import assert from "node:assert/strict";
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { main } from "../../cli/main.js";
import { repoRoot } from "../support/buf.js";
import { captureStream } from "../support/captured-stream.js";
import { installSupervisorPackage } from "../support/supervisor-package.mjs";

const installed = installSupervisorPackage();
const platform = `${process.platform}-${process.arch}`;
/** The program's copy beside the executable, when the test run's package is installed. */
const carried = installed.binary === undefined ? [] : [`harness-tool-supervisor-${platform}`];

const fixture = path.join(repoRoot, "test/cli/fixtures/streaming-provider.ts");
const throwLine =
  readFileSync(fixture, "utf8")
    .split("\n")
    .findIndex((l) => l.includes('throw new Error("failed on purpose")')) + 1;

describe("harness-tool bundle", () => {
  let dir = "";
  let outfile = "";
  let bundleOutput = "";
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-bundle-"));
    outfile = path.join(dir, "dist/provider.mjs");
    const out = captureStream();
    const err = captureStream();
    assert.equal(
      await main(["bundle", fixture, "--outfile", outfile], { out: out.stream, err: err.stream }),
      0,
      err.text(),
    );
    bundleOutput = out.text();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("writes an executable that loads the bundle, the bundle, and its source map", () => {
    accessSync(outfile, constants.X_OK);
    const launcher = readFileSync(outfile, "utf8");
    if (carried.length === 0) assert.match(launcher, /^#!\/usr\/bin\/env node\n/);
    else
      assert.match(
        launcher,
        new RegExp(
          `^#!/bin/sh\n':' //; if .* then exec "\\$\\{0%/\\*\\}/${carried[0]}" node "\\$0" "\\$@"; fi; exec node "\\$0" "\\$@"\n`,
        ),
      );
    assert.match(
      launcher,
      /\nif \(!superviseBeforeLoading\(\)\) \{\n {2}nodeModule\.enableCompileCache\?\.\(\);\n {2}process\.setSourceMapsEnabled\(true\);\n {2}await import\("\.\/provider\.bundle\.mjs"\);\n\}\n$/,
    );
    // The supervisor is inlined (no import but Node's built-ins), and nothing of the provider is.
    assert.deepEqual([...new Set([...launcher.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]))].sort(), [
      "node:child_process",
      "node:fs",
      "node:module",
      "node:path",
      "node:url",
    ]);
    assert.match(launcher, /^import \* as nodeModule from "node:module";$/m);
    assert.ok(launcher.length < 20_000, `the launcher is small: ${launcher.length} bytes`);
    const bundle = readFileSync(path.join(dir, "dist/provider.bundle.mjs"), "utf8");
    assert.match(bundle, /\/\/# sourceMappingURL=provider\.bundle\.mjs\.map\n?$/);
    const map = JSON.parse(readFileSync(path.join(dir, "dist/provider.bundle.mjs.map"), "utf8")) as {
      sources: string[];
      sourcesContent?: unknown;
    };
    assert.ok(
      map.sources.some((s) => s.endsWith("test/cli/fixtures/streaming-provider.ts")),
      "the map lists the entry's source",
    );
    assert.equal(map.sourcesContent, undefined, "mappings only: the sources stay on disk");
    assert.match(
      bundleOutput,
      new RegExp(
        `^${carried.length > 0 ? `copied the supervisor program for ${platform} \\(\\d+\\.\\d MiB\\) to \\S+${carried[0]}: the executable starts it before any Node\\n` : ""}bundled \\d+ modules into \\S+provider\\.bundle\\.mjs \\(\\d+ KiB, source map \\d+ KiB\\); \\S+provider\\.mjs runs it\\n$`,
      ),
    );
    assert.ok(statSync(path.join(dir, "dist/provider.bundle.mjs")).size > 100_000);
  });

  it("a program that does not serve through harness-tool gets the plain launcher", async () => {
    const plain = path.join(dir, "plain/provider.mjs");
    const out = captureStream();
    const err = captureStream();
    assert.equal(
      await main(["bundle", path.join(repoRoot, "test/cli/fixtures/plain-program.ts"), "--outfile", plain], {
        out: out.stream,
        err: err.stream,
      }),
      0,
      err.text(),
    );
    const launcher = readFileSync(plain, "utf8");
    assert.match(
      launcher,
      /\nimport \* as nodeModule from "node:module";\nnodeModule\.enableCompileCache\?\.\(\);\nprocess\.setSourceMapsEnabled\(true\);\nawait import\("\.\/provider\.bundle\.mjs"\);\n$/,
    );
    assert.doesNotMatch(launcher, /superviseBeforeLoading/);
    assert.match(launcher, /^#!\/usr\/bin\/env node\n/);
    assert.deepEqual(readdirSync(path.dirname(plain)).sort(), [
      "provider.bundle.mjs",
      "provider.bundle.mjs.map",
      "provider.mjs",
    ]);
  });

  it("launched by a host, the executable is the supervisor program at once; the switches keep Node", {
    skip: carried.length === 0 || process.platform !== "linux" ? (installed.reason ?? "reads /proc") : false,
  }, async () => {
    const { launch } = await import("harness-tool/host");
    const launchedProgram = async (env: { readonly [name: string]: string }) => {
      const provider = await launch(outfile, { env });
      try {
        return readlinkSync(`/proc/${provider.pid}/exe`);
      } finally {
        await provider.kill();
      }
    };
    assert.equal(await launchedProgram({}), path.join(dir, "dist", carried[0] ?? ""));
    const node = readlinkSync("/proc/self/exe");
    // Off: one Node process; `node`: sh execs node, which runs the Node supervisor.
    assert.equal(await launchedProgram({ HARNESS_TOOL_SUPERVISOR: "off" }), node);
    assert.equal(await launchedProgram({ HARNESS_TOOL_SUPERVISOR_BINARY: "node" }), node);
  });

  it("the provider keeps V8's compile cache in its TMPDIR, and runs when it cannot", async () => {
    // The kernel passes PATH, HOME and TMPDIR: Node's default cache is <TMPDIR>/node-compile-cache.
    const invokeFail = async () => {
      const out = captureStream();
      const err = captureStream();
      const code = await main(["invoke", outfile, "fail", "--args", "{}", "--json"], {
        out: out.stream,
        err: err.stream,
      });
      return { code, out: out.text() };
    };
    const tmp = path.join(dir, "tmp");
    mkdirSync(tmp);
    // A TMPDIR whose node-compile-cache is a file: the cache cannot be made there, even as root.
    const unwritable = path.join(dir, "tmp-without-cache");
    mkdirSync(unwritable);
    writeFileSync(path.join(unwritable, "node-compile-cache"), "");
    const saved = process.env["TMPDIR"];
    try {
      process.env["TMPDIR"] = tmp;
      const cached = await invokeFail();
      assert.match(cached.out, /failed on purpose/);
      const files = readdirSync(path.join(tmp, "node-compile-cache"), { recursive: true, withFileTypes: true });
      assert.ok(
        files.some((e) => e.isFile()),
        "the compile cache was written under TMPDIR",
      );
      assert.deepEqual(
        readdirSync(path.join(dir, "dist")).sort(),
        [...carried, "provider.bundle.mjs", "provider.bundle.mjs.map", "provider.mjs"],
        "nothing is written beside the provider",
      );
      process.env["TMPDIR"] = unwritable;
      const uncached = await invokeFail();
      assert.equal(uncached.code, cached.code, "the provider ran and answered the call");
      assert.match(uncached.out, /failed on purpose/);
    } finally {
      if (saved === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = saved;
    }
  });

  it("a handler's stack trace names the source file and line, not the bundle", async () => {
    const out = captureStream();
    const err = captureStream();
    assert.equal(
      await main(["invoke", outfile, "fail", "--args", "{}", "--json"], { out: out.stream, err: err.stream }),
      1,
      err.text(),
    );
    const event = JSON.parse(out.text().trim()) as { error: { details: { error: { stack?: string } } } };
    // The stack goes to the provider's log (invoke prints it on stderr), never to the event the model reads.
    assert.equal(event.error.details.error.stack, undefined);
    const logged = err.text();
    assert.match(
      logged,
      new RegExp(`at failDeliberately \\(\\S*test/cli/fixtures/streaming-provider\\.ts:${throwLine}:\\d+\\)`),
      logged,
    );
    assert.doesNotMatch(logged, /at failDeliberately \(\S*provider\.bundle\.mjs/);
  });
});
