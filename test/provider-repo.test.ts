// harness-tool's three packages, packed as a release is: what each tarball ships, and a provider
// repository that installed them can import the annotations and the kernel's protos from
// node_modules and generate with the buf configurations the README documents
// (protoc-gen-harness-tool alone, and with protoc-gen-es beside it).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { bufExecutable, repoRoot, runBuf } from "./support/buf.js";
import { harnessToolPackages, type HarnessToolPackage } from "../cli/templates/package-sources.js";
import { packWorkspaces, type PackedPackages } from "./support/pack-workspaces.js";
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

/** The paths of a tarball's files, without npm's package/ prefix. */
function tarballFiles(tarball: string): string[] {
  return execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter((f) => f !== "")
    .map((f) => f.replace(/^package\//, ""));
}

describe("a provider repository using the installed packages", () => {
  let dir = "";
  let packed: PackedPackages;
  const files = new Map<HarnessToolPackage, string[]>();

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-provider-"));
    packed = packWorkspaces(path.join(dir, "packed"));
    // What npm would install: each tarball unpacked into node_modules, the plugin's bin linked.
    for (const which of ["runtime", "plugin", "cli"] as const) {
      files.set(which, tarballFiles(packed[which]));
      const target = path.join(dir, "node_modules", harnessToolPackages[which]);
      mkdirSync(target, { recursive: true });
      execFileSync("tar", ["-xzf", packed[which], "-C", target, "--strip-components=1"]);
    }
    mkdirSync(path.join(dir, "node_modules/.bin"));
    symlinkSync(
      path.join(dir, "node_modules", harnessToolPackages.plugin, "protoc-gen-harness-tool.mjs"),
      path.join(dir, "node_modules/.bin/protoc-gen-harness-tool"),
    );
    mkdirSync(path.join(dir, "proto/acme/fs/v1"), { recursive: true });
    writeFileSync(path.join(dir, "proto/acme/fs/v1/fs.proto"), providerProto);
    writeFileSync(path.join(dir, "buf.yaml"), readmeExample("provider buf.yaml"));
  });

  /** `buf generate` with the README's template `example` into `out`, the repository's bins first on PATH. */
  function generate(example: string, out: string): void {
    writeFileSync(path.join(dir, `${out}.gen.yaml`), readmeExample(example).replace(/out: src\/gen/g, `out: ${out}`));
    const bins = [
      path.join(dir, "node_modules/.bin"),
      path.join(repoRoot, "node_modules/.bin"),
      process.env["PATH"] ?? "",
    ].join(path.delimiter);
    const run = spawnSync(bufExecutable(), ["generate", "--template", `${out}.gen.yaml`], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: bins },
    });
    assert.equal(run.status, 0, `buf generate failed:\n${run.stderr}`);
  }

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("the plugin ships the annotations and the kernel protos; the runtime the generated wire types", () => {
    for (const file of [
      "proto/harnesstool/v1/annotations.proto",
      "proto/pluggableharness/tool/v1/tool.proto",
      "proto/pluggableharness/kernel/v1/kernel.proto",
    ]) {
      assert.ok(files.get("plugin")?.includes(file), `the plugin package does not ship ${file}`);
    }
    for (const file of [
      "dist/generated/harnesstool/v1/annotations_pb.js",
      "dist/generated/pluggableharness/tool/v1/tool_pb.js",
      "dist/generated/pluggableharness/tool/v1/tool_pb.d.ts",
    ]) {
      assert.ok(files.get("runtime")?.includes(file), `the runtime package does not ship ${file}`);
    }
  });

  it("each package ships what runs, its README and LICENSE, and no TypeScript sources or source maps", () => {
    for (const [which, list] of files) {
      for (const file of ["package.json", "README.md", "LICENSE"])
        assert.ok(list.includes(file), `${which} does not ship ${file}`);
      // The CLI's templates/ are data, the files `init` writes (a new repository's sources and tests).
      const own = list.filter((f) => which !== "cli" || !f.startsWith("templates/"));
      assert.deepEqual(
        own.filter((f) => /\.map$|(?<!\.d)\.ts$|\.tsx$/.test(f)),
        [],
        `${which} ships sources or maps`,
      );
      assert.deepEqual(
        own.filter((f) => /(^|\/)test\/|\.test\./.test(f)),
        [],
        `${which} ships tests`,
      );
    }
    assert.ok(files.get("plugin")?.includes("dist/protoc-gen-harness-tool.mjs"));
    assert.ok(files.get("plugin")?.includes("dist/THIRD-PARTY-NOTICES.md"));
    assert.ok(files.get("cli")?.includes("inspector/page-dist/inspector.js"));
    assert.ok(files.get("cli")?.includes("dist/main.js"));
    // Every template file init reads, and no more.
    const templates = readdirSync(path.join(repoRoot, "cli/templates"), { recursive: true, withFileTypes: true })
      .filter(
        (e) =>
          e.isFile() &&
          /^(provider|example-tools)(\/|$)/.test(path.relative(path.join(repoRoot, "cli/templates"), e.parentPath)),
      )
      .map((e) => path.relative(path.join(repoRoot, "cli"), path.join(e.parentPath, e.name)))
      .sort();
    assert.ok(templates.length > 20, templates.join(" "));
    assert.deepEqual(
      files
        .get("cli")
        ?.filter((f) => f.startsWith("templates/"))
        .sort(),
      templates,
    );
    assert.ok(files.get("runtime")?.includes("dist/index.d.ts"));
  });

  it("every entry point of the runtime's exports map is in its tarball", () => {
    const manifest = JSON.parse(readFileSync(path.join(dir, "node_modules/harness-tool/package.json"), "utf8")) as {
      exports: Record<string, string | Record<string, string>>;
    };
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (entry.includes("*")) continue;
      const conditions = typeof target === "string" ? { default: target } : target;
      for (const [condition, file] of Object.entries(conditions)) {
        if (condition === "harness-tool-source") continue; // this repository's own tests only
        assert.ok(
          existsSync(path.join(dir, "node_modules/harness-tool", file)),
          `${entry} (${condition}) -> ${file} is not shipped`,
        );
      }
    }
  });

  it("builds a proto that imports harnesstool/v1/annotations.proto", () => {
    const run = runBuf(["build", "proto"], dir);
    assert.equal(run.status, 0, `buf build failed:\n${run.stderr}`);
  });

  it("generates only the provider's own modules with protoc-gen-harness-tool alone", () => {
    generate("provider buf.gen.yaml", "alone");
    const files = readdirSync(path.join(dir, "alone"), { recursive: true, encoding: "utf8" }).filter((f) =>
      /\.(js|ts)$/.test(f),
    );
    assert.deepEqual(files.sort(), [
      "acme/fs/v1/fs_tool.d.ts",
      "acme/fs/v1/fs_tool.js",
      "acme/fs/v1/fs_tool_schemas.d.ts",
      "acme/fs/v1/fs_tool_schemas.js",
    ]);
    // Only harness-tool's own copies of the wire types, never protoc-gen-es output of this repository.
    for (const file of files)
      assert.doesNotMatch(
        readFileSync(path.join(dir, "alone", file), "utf8"),
        /from "\.[^"]*_pb\.js"/,
        `${file} imports protoc-gen-es output`,
      );
  });

  it("with protoc-gen-es beside it, imports the wire types from harness-tool", () => {
    generate("provider buf.gen.yaml with protoc-gen-es", "with-es");
    const generated = readFileSync(path.join(dir, "with-es/acme/fs/v1/fs_pb.js"), "utf8");
    assert.match(generated, /from "harness-tool\/generated\/harnesstool\/v1\/annotations_pb\.js"/);
    assert.doesNotMatch(generated, /from "\.\.\/.*harnesstool/);
  });
});
