// A provider repository that installed harness-tool from npm can import the annotations and the
// kernel's protos from node_modules, and generate with the buf configurations the README documents
// (protoc-gen-harness-tool alone, and with protoc-gen-es beside it).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bufExecutable, repoRoot, runBuf } from "./support/buf.js";
import { readmeExample } from "./support/readme-examples.js";

const providerProto = `syntax = "proto3";

package acme.fs.v1;

import "harnesstool/v1/annotations.proto";

// Reads files for the agent.
service FilesystemService {
  option (harnesstool.v1.provider) = {source: "github.com/acme/provider-fs"};

  // Reads one file.
  rpc ReadFile(ReadFileRequest) returns (ReadFileResponse) {
    option (harnesstool.v1.tool) = {
      kind: TOOL_KIND_DATA_SOURCE
      risk: RISK_CLASS_READ_ONLY
      idempotent: true
      concurrency: {safe: true}
    };
  }
}

// The file to read.
message ReadFileRequest {
  // Path relative to the working directory.
  string path = 1;
}

// The file's text.
message ReadFileResponse {
  // The content.
  string content = 1;
}
`;

describe("a provider repository using the installed package", () => {
  let dir = "";
  let packed: string[] = [];

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-provider-"));
    // What npm would install: the package's tarball, unpacked into node_modules/harness-tool.
    const out = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    const [info] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
    assert.ok(info);
    packed = info.files.map((f) => f.path);
    const target = path.join(dir, "node_modules/harness-tool");
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", path.join(dir, info.filename), "-C", target, "--strip-components=1"]);
    // What `npm run build` adds to the tarball (packed above without it): the bundled plugin the
    // bin runs, and the bin where npm links it.
    execFileSync(process.execPath, [path.join(repoRoot, "plugin/bundle-plugin.mjs"), path.join(target, "dist")]);
    mkdirSync(path.join(dir, "node_modules/.bin"));
    symlinkSync(path.join(target, "plugin/protoc-gen-harness-tool.mjs"), path.join(dir, "node_modules/.bin/protoc-gen-harness-tool"));
    mkdirSync(path.join(dir, "proto/acme/fs/v1"), { recursive: true });
    writeFileSync(path.join(dir, "proto/acme/fs/v1/fs.proto"), providerProto);
    writeFileSync(path.join(dir, "buf.yaml"), readmeExample("provider buf.yaml"));
  });

  /** `buf generate` with the README's template `example` into `out`, the repository's bins first on PATH. */
  function generate(example: string, out: string): void {
    writeFileSync(path.join(dir, `${out}.gen.yaml`), readmeExample(example).replace(/out: src\/gen/g, `out: ${out}`));
    const bins = [path.join(dir, "node_modules/.bin"), path.join(repoRoot, "node_modules/.bin"), process.env["PATH"] ?? ""].join(path.delimiter);
    const run = spawnSync(bufExecutable(), ["generate", "--template", `${out}.gen.yaml`], { cwd: dir, encoding: "utf8", env: { ...process.env, PATH: bins } });
    assert.equal(run.status, 0, `buf generate failed:\n${run.stderr}`);
  }

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("ships the annotation and kernel protos and the generated wire types", () => {
    for (const file of [
      "proto/harnesstool/v1/annotations.proto",
      "proto/pluggableharness/tool/v1/tool.proto",
      "proto/pluggableharness/kernel/v1/kernel.proto",
      "generated/harnesstool/v1/annotations_pb.ts",
      "generated/pluggableharness/tool/v1/tool_pb.ts",
    ]) {
      assert.ok(packed.includes(file), `the npm package does not ship ${file}`);
    }
  });

  it("builds a proto that imports harnesstool/v1/annotations.proto", () => {
    const run = runBuf(["build", "proto"], dir);
    assert.equal(run.status, 0, `buf build failed:\n${run.stderr}`);
  });

  it("generates only the provider's own modules with protoc-gen-harness-tool alone", () => {
    generate("provider buf.gen.yaml", "alone");
    const files = readdirSync(path.join(dir, "alone"), { recursive: true, encoding: "utf8" }).filter((f) => /\.(js|ts)$/.test(f));
    assert.deepEqual(files.sort(), ["acme/fs/v1/fs_tool.d.ts", "acme/fs/v1/fs_tool.js", "acme/fs/v1/fs_tool_schemas.d.ts", "acme/fs/v1/fs_tool_schemas.js"]);
    // Only harness-tool's own copies of the wire types, never protoc-gen-es output of this repository.
    for (const file of files) assert.doesNotMatch(readFileSync(path.join(dir, "alone", file), "utf8"), /from "\.[^"]*_pb\.js"/, `${file} imports protoc-gen-es output`);
  });

  it("with protoc-gen-es beside it, imports the wire types from harness-tool", () => {
    generate("provider buf.gen.yaml with protoc-gen-es", "with-es");
    const generated = readFileSync(path.join(dir, "with-es/acme/fs/v1/fs_pb.js"), "utf8");
    assert.match(generated, /from "harness-tool\/generated\/harnesstool\/v1\/annotations_pb\.js"/);
    assert.doesNotMatch(generated, /from "\.\.\/.*harnesstool/);
  });
});
