// The bundled plugin an installed package runs (plugin/bundle-plugin.mjs) stands alone: copied into
// a folder with no node_modules anywhere above it, so it can load neither the TypeScript compiler
// nor any other package, it answers a CodeGeneratorRequest with exactly the files the
// plugin's sources write, in every target.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { runProtocPlugin } from "../../plugin/run-protoc-plugin.js";
import { repoRoot } from "../support/buf.js";
import { buildFiles, requestFor } from "./support/plugin-request.js";

/** The nearest node_modules at or above `dir`, if any. */
function nodeModulesAbove(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, "node_modules"))) return path.join(d, "node_modules");
    if (path.dirname(d) === d) return undefined;
  }
}

describe("the bundled plugin", () => {
  let work = "";
  let bundle = "";
  before(() => {
    work = mkdtempSync(path.join(tmpdir(), "harness-tool-plugin-bundle-"));
    const built = spawnSync(
      process.execPath,
      [path.join(repoRoot, "plugin/bundle-plugin.mjs"), path.join(work, "dist")],
      { encoding: "utf8" },
    );
    assert.equal(built.status, 0, built.stderr);
    // Alone: nothing but the bundle in a folder of its own.
    bundle = path.join(work, "alone/protoc-gen-harness-tool.mjs");
    mkdirSync(path.dirname(bundle));
    copyFileSync(path.join(work, "dist/protoc-gen-harness-tool.mjs"), bundle);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it("runs where no package can be resolved", () => {
    assert.equal(
      nodeModulesAbove(path.dirname(bundle)),
      undefined,
      "the test needs a temp dir with no node_modules above it",
    );
    const run = spawnSync(process.execPath, [bundle, "--version"], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, "plugin/package.json"), "utf8")) as {
      version: string;
    };
    assert.equal(run.stdout, `protoc-gen-harness-tool v${version}\n`);
  });

  it("keeps the license of every third-party package it holds", () => {
    const notices = readFileSync(path.join(work, "dist/THIRD-PARTY-NOTICES.md"), "utf8");
    for (const bundled of [
      "@bufbuild/protoplugin",
      "@bufbuild/protobuf",
      "json-schema-to-typescript",
      "lodash",
      "js-yaml",
      "@apidevtools/json-schema-ref-parser",
      "@jsdevtools/ono",
    ]) {
      assert.match(notices, new RegExp(`^## ${bundled.replace("/", "\\/")} \\d`, "m"), `no notice for ${bundled}`);
    }
    // The bufbuild packages ship no license file: their notice names the license (Apache-2.0).
    assert.match(notices, /^License: Apache-2.0$/m, "each package names its license");
    // The runtime's rules are bundled from this repository's sources, not from a package: no notice.
    assert.doesNotMatch(notices, /^## harness-tool /m);
    assert.doesNotMatch(
      notices,
      /^## @grpc\/grpc-js /m,
      "gRPC is in the bundle: the plugin imports the runtime's server",
    );
  });

  it("holds stand-ins for the TypeScript compiler and prettier, not the packages", () => {
    const text = readFileSync(bundle, "utf8");
    assert.match(text, /does not bundle the TypeScript compiler/);
    assert.doesNotMatch(text, /versionMajorMinor = "/, "the TypeScript compiler is in the bundle");
    // json-schema-to-typescript imports prettier at load; the plugin compiles with `format: false`.
    assert.match(text, /does not bundle prettier/);
    assert.doesNotMatch(
      readFileSync(path.join(work, "dist/THIRD-PARTY-NOTICES.md"), "utf8"),
      /^## prettier /m,
      "prettier is in the bundle",
    );
  });

  for (const parameter of ["target=ts,import_extension=js", "target=js+dts,import_extension=js"]) {
    it(`writes what the sources write (${parameter})`, async () => {
      const files = buildFiles(".", path.join(import.meta.dirname, "protos"));
      const request = requestFor(files, ["mapping.proto", "no_timeout.proto"], parameter);
      const run = spawnSync(process.execPath, [bundle], { input: toBinary(CodeGeneratorRequestSchema, request) });
      assert.equal(run.status, 0, run.stderr.toString("utf8"));
      const response = fromBinary(CodeGeneratorResponseSchema, new Uint8Array(run.stdout));
      const expected = (await runProtocPlugin(request)).response;
      assert.equal(response.error ?? "", "");
      assert.deepEqual(
        response.file.map((f) => [f.name, f.content]),
        expected.file.map((f) => [f.name, f.content]),
      );
    });
  }

  it("refuses a bad option in one line on stderr, exit status 1, nothing on stdout", () => {
    const files = buildFiles(".", path.join(import.meta.dirname, "protos"));
    const request = requestFor(files, ["no_timeout.proto"], "target=ts,runtime_path=x");
    const run = spawnSync(process.execPath, [bundle], {
      input: toBinary(CodeGeneratorRequestSchema, request),
      encoding: "utf8",
    });
    assert.equal(run.status, 1);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^protoc-gen-harness-tool: invalid option "runtime_path=x": unknown option "runtime_path" \(.+\)\n$/,
    );
  });
});
