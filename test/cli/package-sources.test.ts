// Where a new repository installs harness-tool's three packages from: the tarball names npm pack
// writes, a version range or a folder of tarballs as one source (with errors that name what is
// missing), the default taken from how the CLI itself was installed, and the @bufbuild/protobuf
// release the scaffold asks for kept equal to the runtime's peer range.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { defaultPackageSource, initCommand } from "../../cli/commands/init-command.js";
import {
  harnessToolPackages,
  PackageSourceError,
  packageSpecs,
  protobufVersion,
  tarballName,
} from "../../cli/templates/package-sources.js";
import { UsageError } from "../../cli/terminal/usage-error.js";
import { repoRoot } from "../support/buf.js";

const manifest = (dir: string) =>
  JSON.parse(readFileSync(path.join(repoRoot, dir, "package.json"), "utf8")) as {
    name: string;
    version: string;
    peerDependencies?: Record<string, string>;
  };

describe("harness-tool's package sources", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-sources-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("names each package the way the workspaces are called", () => {
    assert.equal(harnessToolPackages.runtime, manifest("runtime").name);
    assert.equal(harnessToolPackages.plugin, manifest("plugin").name);
    assert.equal(harnessToolPackages.cli, manifest("cli").name);
  });

  it("names tarballs as npm pack does: the scope's @ dropped, its / as -", () => {
    assert.equal(tarballName("harness-tool", "0.1.0"), "harness-tool-0.1.0.tgz");
    assert.equal(tarballName("@harness-tool/cli", "0.1.0"), "harness-tool-cli-0.1.0.tgz");
    assert.equal(
      tarballName("@harness-tool/protoc-gen-harness-tool", "1.2.3"),
      "harness-tool-protoc-gen-harness-tool-1.2.3.tgz",
    );
  });

  it("gives a version range to all three packages", () => {
    assert.deepEqual(packageSpecs(" ^0.1.0 ", "0.1.0"), { runtime: "^0.1.0", plugin: "^0.1.0", cli: "^0.1.0" });
  });

  it("takes a folder, or one tarball meaning its folder, when all three tarballs of the version are there", () => {
    const folder = path.join(dir, "complete");
    mkdirSync(folder);
    for (const name of Object.values(harnessToolPackages))
      writeFileSync(path.join(folder, tarballName(name, "0.1.0")), "");
    const expected = {
      runtime: `file:${path.join(folder, "harness-tool-0.1.0.tgz")}`,
      plugin: `file:${path.join(folder, "harness-tool-protoc-gen-harness-tool-0.1.0.tgz")}`,
      cli: `file:${path.join(folder, "harness-tool-cli-0.1.0.tgz")}`,
    };
    assert.deepEqual(packageSpecs(`file:${folder}`, "0.1.0"), expected);
    assert.deepEqual(packageSpecs(`file:${path.join(folder, "harness-tool-cli-0.1.0.tgz")}`, "0.1.0"), expected);
    // Written absolute, it stays absolute in a new repository.
    assert.deepEqual(packageSpecs(`file:${folder}`, "0.1.0", path.join(dir, "repo")), expected);
  });

  it("writes a relative folder relative to the new repository, so the repository can move with its tarballs", () => {
    const folder = path.join(dir, "beside");
    mkdirSync(folder);
    for (const name of Object.values(harnessToolPackages))
      writeFileSync(path.join(folder, tarballName(name, "0.1.0")), "");
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      for (const written of ["file:./beside", "file:beside", "file:beside/harness-tool-0.1.0.tgz"]) {
        assert.deepEqual(
          packageSpecs(written, "0.1.0", path.join(dir, "work/notes")),
          {
            runtime: "file:../../beside/harness-tool-0.1.0.tgz",
            plugin: "file:../../beside/harness-tool-protoc-gen-harness-tool-0.1.0.tgz",
            cli: "file:../../beside/harness-tool-cli-0.1.0.tgz",
          },
          written,
        );
      }
      assert.equal(
        packageSpecs("file:./beside", "0.1.0", path.join(dir, "beside/notes")).cli,
        "file:../harness-tool-cli-0.1.0.tgz",
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it("refuses a folder that lacks a tarball, naming each missing one, and an empty source", () => {
    const folder = path.join(dir, "partial");
    mkdirSync(folder);
    writeFileSync(path.join(folder, "harness-tool-cli-0.1.0.tgz"), "");
    writeFileSync(path.join(folder, "harness-tool-0.0.9.tgz"), "");
    assert.throws(
      () => packageSpecs(`file:${folder}`, "0.1.0"),
      (e: unknown) => {
        assert.ok(e instanceof PackageSourceError);
        assert.match(
          e.message,
          /lacks harness-tool-0\.1\.0\.tgz, harness-tool-protoc-gen-harness-tool-0\.1\.0\.tgz \(`npm run pack:all`/,
        );
        assert.doesNotMatch(e.message, /harness-tool-cli-0\.1\.0\.tgz/);
        return true;
      },
    );
    assert.throws(() => packageSpecs(`file:${path.join(dir, "absent")}`, "0.1.0"), /absent does not exist/);
    assert.throws(() => packageSpecs("  ", "0.1.0"), PackageSourceError);
  });

  it("init reports a bad source as a usage error and writes nothing", async () => {
    const target = path.join(dir, "never-written");
    const streams = {
      out: { write: () => true } as unknown as NodeJS.WritableStream,
      err: { write: () => true } as unknown as NodeJS.WritableStream,
    };
    await assert.rejects(
      initCommand(
        { dir: target, name: "notes", harnessTool: `file:${path.join(dir, "absent")}`, force: false, yes: true },
        streams,
      ),
      (e: unknown) => e instanceof UsageError && /^--harness-tool: .*absent does not exist/.test(e.message),
    );
    assert.throws(() => readFileSync(path.join(target, "package.json")), /ENOENT/);
  });

  it("defaults to the folder of the tarball the CLI was installed from, else to the registry", () => {
    // As npx or npm lays it out: <installer>/package.json naming the CLI's tarball, the CLI under
    // <installer>/node_modules/@harness-tool/cli.
    const installer = path.join(dir, "installer");
    const cli = path.join(installer, "node_modules/@harness-tool/cli");
    mkdirSync(cli, { recursive: true });
    const tarballs = path.join(dir, "tarballs");
    mkdirSync(tarballs);
    writeFileSync(path.join(tarballs, "harness-tool-cli-0.1.0.tgz"), "");
    writeFileSync(
      path.join(installer, "package.json"),
      JSON.stringify({
        dependencies: { "@harness-tool/cli": `file:${path.relative(installer, tarballs)}/harness-tool-cli-0.1.0.tgz` },
      }),
    );
    assert.equal(defaultPackageSource(cli, path.join(dir, "elsewhere")), `file:${tarballs}`);
    // Run where the tarballs are (the README's quickstart) or above them: relative, so the new
    // repository names them relative to itself.
    assert.equal(defaultPackageSource(cli, tarballs), "file:./");
    assert.equal(defaultPackageSource(cli, dir), "file:./tarballs");
    // Installed from the registry: the release of this version.
    writeFileSync(
      path.join(installer, "package.json"),
      JSON.stringify({ devDependencies: { "@harness-tool/cli": "^0.1.0" } }),
    );
    assert.equal(defaultPackageSource(cli), `^${manifest("cli").version}`);
    // Not installed at all (this checkout).
    assert.equal(defaultPackageSource(path.join(repoRoot, "cli")), `^${manifest("cli").version}`);
  });

  it("asks for the @bufbuild/protobuf release the runtime's peer range starts at, and the repository tests with", () => {
    assert.equal(manifest("runtime").peerDependencies?.["@bufbuild/protobuf"], `^${protobufVersion}`);
    const root = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    assert.equal(root.devDependencies["@bufbuild/protobuf"], protobufVersion);
  });
});
