// A provider repository that installed harness-tool from npm can import the annotations and the
// kernel's protos from node_modules with the buf configuration the README documents.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { repoRoot, runBuf } from "./support/buf.js";
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
    mkdirSync(path.join(dir, "proto/acme/fs/v1"), { recursive: true });
    writeFileSync(path.join(dir, "proto/acme/fs/v1/fs.proto"), providerProto);
    writeFileSync(path.join(dir, "buf.yaml"), readmeExample("provider buf.yaml"));
    writeFileSync(path.join(dir, "buf.gen.yaml"), readmeExample("provider buf.gen.yaml"));
  });

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

  it("generates only the provider's own file, importing wire types from harness-tool", () => {
    const run = runBuf(["generate"], dir);
    assert.equal(run.status, 0, `buf generate failed:\n${run.stderr}`);
    const generated = readFileSync(path.join(dir, "src/gen/acme/fs/v1/fs_pb.ts"), "utf8");
    assert.match(generated, /from "harness-tool\/generated\/harnesstool\/v1\/annotations_pb\.js"/);
    assert.doesNotMatch(generated, /from "\.\.\/.*harnesstool/);
  });
});
